#!/usr/bin/env bash
# Measures the wall time of `terraform plan` over N running agents (default
# 20) on the local adapter, against a baseline plan of the same provider
# managing nothing. Usage: bench/plan.sh [agents] [runs]
set -euo pipefail
agents="${1:-20}"
runs="${2:-5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'cd "$work/fleet" 2>/dev/null && terraform destroy -auto-approve -no-color >/dev/null; rm -rf "$work"' EXIT

. "$root/bench/lib.sh"
dev_provider "$root" "$work"

write_config() { # dir agents
  mkdir -p "$1"
  cat >"$1/main.tf" <<TF
terraform {
  required_providers {
    a2a = { source = "a2a-terraform/a2a" }
  }
}
provider "a2a" {
  state_dir = "$work/state"
}
resource "a2a_agent" "fleet" {
  count  = $2
  config = <<-EOT
    [agent]
    name        = "Bench Agent \${count.index}"
    description = "agent \${count.index} of $2"
  EOT
}
TF
}

# median_plan prints the median wall time, in milliseconds, of plan in dir.
median_plan() {
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    terraform -chdir="$1" plan -no-color -detailed-exitcode >/dev/null
    end=$(date +%s%N)
    times+=($(((end - start) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

write_config "$work/empty" 0
write_config "$work/fleet" "$agents"
terraform -chdir="$work/fleet" apply -auto-approve -no-color >/dev/null

baseline=$(median_plan "$work/empty")
fleet=$(median_plan "$work/fleet")
echo "terraform plan, median of $runs runs:"
echo "  0 agents (baseline): ${baseline} ms"
echo "  $agents running agents:  ${fleet} ms ($(awk -v a="$fleet" -v b="$baseline" 'BEGIN { printf "%.2f", a / b }')x baseline)"
