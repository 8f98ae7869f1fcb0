#!/usr/bin/env bash
# Measures what an agent costs run by the agent host the adapters start
# (a2a-agent-host, cmd/a2a-agent-host) against the agent host package built
# alone (bench/barehost), side by side in one run, both built as the release
# builds them: the time from exec until the card answers (median of RUNS
# starts each, alternating), the resident memory of an idle agent that has
# served one message (mean of RSS_RUNS), the executable, and the base image
# the container adapter builds from each, when a container engine answers.
# Prints each figure and the ratio of the two.
# Usage: bench/host.sh [runs] [rss_runs]
# With A2A_HOST_CONFIG naming an agent config (such as one with a
# [telemetry] table), a2a-agent-host runs that config and the baseline the
# plain echo agent, so the ratios are what the config costs on top.
set -euo pipefail
runs="${1:-20}"
rss_runs="${2:-3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

release_build() { # OUT PACKAGE
  (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$1" "$2")
}
release_build "$work/a2a-agent-host" ./cmd/a2a-agent-host
release_build "$work/barehost" ./bench/barehost
release_build "$work/hostcost" ./bench/hostcost

image=true
docker info >/dev/null 2>&1 || { image=false; echo "no container engine answers (docker info): base images not measured" >&2; }
"$work/hostcost" -runs "$runs" -rss-runs "$rss_runs" -image="$image" ${A2A_HOST_CONFIG:+-host-config "$A2A_HOST_CONFIG"} \
  "$work/a2a-agent-host" "$work/barehost"
