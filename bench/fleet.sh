#!/usr/bin/env bash
# Measures, side by side in one run on the local adapter, what a fleet of N
# agents costs terraform beyond the floor of managing N objects at all:
#
#   plan  of N running agents   against  plan of N env allowlists
#   apply of N agents           against  apply of N env allowlists, plus
#                                        starting N agent hosts directly and
#                                        waiting until each card answers
#
# Each figure is the median of R runs, the runs of both sides alternating so
# that a noisy machine weighs on both alike. Prints both medians and their
# ratio. Usage: bench/fleet.sh [agents] [runs]
set -euo pipefail
agents="${1:-100}"
runs="${2:-5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for d in agents allowlists; do
    terraform -chdir="$work/$d" destroy -auto-approve -no-color >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

. "$root/bench/lib.sh"
dev_provider "$root" "$work"

header() { # dir
  mkdir -p "$1"
  cat >"$1/main.tf" <<TF
terraform {
  required_providers {
    a2a = { source = "a2a-terraform/a2a" }
  }
}
provider "a2a" {
  state_dir = "$1/state"
}
TF
}

header "$work/agents"
cat >>"$work/agents/main.tf" <<TF
resource "a2a_agent" "fleet" {
  count  = $agents
  config = <<-EOT
    [agent]
    name        = "Fleet Agent \${count.index}"
    description = "agent \${count.index} of $agents"
  EOT
}
TF
header "$work/allowlists"
cat >>"$work/allowlists/main.tf" <<TF
resource "a2a_env_allowlist" "fleet" {
  count     = $agents
  name      = "fleet-\${count.index}"
  variables = ["FLEET_\${count.index}"]
}
TF
cat >"$work/agent.toml" <<'TOML'
[agent]
name = "Direct Agent"
TOML

ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

# spawn_direct starts N agent hosts as plain processes and waits until the
# card of each answers: what the adapter does, without terraform.
spawn_direct() {
  local dir="$work/direct" i
  rm -rf "$dir" && mkdir -p "$dir"
  pids=()
  for i in $(seq "$agents"); do
    "$work/bin/a2a-agent-host" --config "$work/agent.toml" --port 0 >"$dir/$i.log" 2>&1 &
    pids+=("$!")
  done
  for i in $(seq "$agents"); do
    local endpoint=""
    for _ in $(seq 400); do
      endpoint="$(sed -n 's/.*msg="agent host started".* endpoint=\([^ ]*\).*/\1/p' "$dir/$i.log")"
      [ -n "$endpoint" ] && curl -fsS -o /dev/null "${endpoint%/}/.well-known/agent-card.json" && break
      sleep 0.01
    done
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
}

median() { sort -n | sed -n "$(((runs + 1) / 2))p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

apply_agents=() apply_floor=() plan_agents=() plan_allowlists=()
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  terraform -chdir="$work/allowlists" apply -auto-approve -no-color >/dev/null
  spawn_direct
  apply_floor+=("$(ms "$start")")
  start=$(date +%s%N)
  terraform -chdir="$work/agents" apply -auto-approve -no-color >/dev/null
  apply_agents+=("$(ms "$start")")

  start=$(date +%s%N)
  terraform -chdir="$work/allowlists" plan -no-color -detailed-exitcode >/dev/null
  plan_allowlists+=("$(ms "$start")")
  start=$(date +%s%N)
  terraform -chdir="$work/agents" plan -no-color -detailed-exitcode >/dev/null
  plan_agents+=("$(ms "$start")")

  terraform -chdir="$work/agents" destroy -auto-approve -no-color >/dev/null
  terraform -chdir="$work/allowlists" destroy -auto-approve -no-color >/dev/null
done

a=$(printf '%s\n' "${apply_agents[@]}" | median)
f=$(printf '%s\n' "${apply_floor[@]}" | median)
p=$(printf '%s\n' "${plan_agents[@]}" | median)
q=$(printf '%s\n' "${plan_allowlists[@]}" | median)
echo "N = $agents, median of $runs runs:"
echo "  apply: $agents agents ${a} ms; $agents allowlists + $agents hosts spawned directly ${f} ms; ratio $(ratio "$a" "$f")x"
echo "  plan:  $agents agents ${p} ms; $agents allowlists ${q} ms; ratio $(ratio "$p" "$q")x"
