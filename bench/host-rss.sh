#!/usr/bin/env bash
# Measures the idle resident memory (RSS) of an echo agent run by the
# provider executable (`terraform-provider-a2a run`, what every adapter
# starts) against the same agent host built alone without the provider's
# other dependencies (bench/barehost), side by side in one run. Each agent
# serves its card and one message, then idles (longer than the host's
# quiet period, after which it releases memory) before it is measured.
# Prints the mean RSS of each and their ratio.
# Usage: bench/host-rss.sh [runs]
set -euo pipefail
runs="${1:-5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/terraform-provider-a2a" "$root"
go build -o "$work/barehost" "$root/bench/barehost"
cat >"$work/agent.toml" <<'TOML'
[agent]
name = "Echo Agent"

[handler]
type = "echo"
TOML

# idle_rss_kib BINARY: starts BINARY as an agent host on a free port, sends
# it one message and prints its VmRSS in KiB once idle.
idle_rss_kib() {
  local log="$work/$(basename "$1").log" endpoint="" pid
  : >"$log"
  "$1" run --config "$work/agent.toml" --port 0 >"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 200); do
    endpoint="$(sed -n 's/.*msg="agent host started".* endpoint=\([^ ]*\).*/\1/p' "$log")"
    [ -n "$endpoint" ] && break
    sleep 0.05
  done
  [ -n "$endpoint" ] || { echo "agent host did not start: $(cat "$log")" >&2; exit 1; }
  curl -fsS "${endpoint%/}/.well-known/agent-card.json" >/dev/null
  curl -fsS -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' "$endpoint" \
    -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}' >/dev/null
  sleep "${IDLE_SECONDS:-12}"
  awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

provider_total=0
bare_total=0
for run in $(seq "$runs"); do
  # Alternate which goes first, so neither always meets a warmer cache.
  if ((run % 2)); then
    p="$(idle_rss_kib "$work/terraform-provider-a2a")"
    b="$(idle_rss_kib "$work/barehost")"
  else
    b="$(idle_rss_kib "$work/barehost")"
    p="$(idle_rss_kib "$work/terraform-provider-a2a")"
  fi
  echo "run $run: provider executable ${p} KiB, bare host ${b} KiB"
  provider_total=$((provider_total + p))
  bare_total=$((bare_total + b))
done
awk -v p="$provider_total" -v b="$bare_total" -v n="$runs" 'BEGIN {
  printf "idle RSS, mean of %d: provider executable %.0f KiB, bare host %.0f KiB, ratio %.2f\n", n, p / n, b / n, p / b
}'
