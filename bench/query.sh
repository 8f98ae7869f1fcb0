#!/usr/bin/env bash
# Measures, on the local adapter, what finding N running agents with
# `terraform query` costs against `terraform plan` of the configuration
# that manages the same N agents (the baseline), in one run:
#
#   terraform query                            the agents' identities and names
#   terraform query -generate-config-out=FILE  the same with what an import of each
#                                              reads, written out as configuration
#   terraform plan                             refresh and plan of the N agents
#
# All three run the Terraform CLI scripts/terraform-cli.sh builds (the one
# on PATH may know no query), the runs of the three alternating so that a
# noisy machine weighs on each alike. Prints the median of R runs of each
# and its ratio to the plan's. Usage: bench/query.sh [agents] [runs]
set -euo pipefail
agents="${1:-100}"
runs="${2:-5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
terraform=$("$root/scripts/terraform-cli.sh")
work="$(mktemp -d)"
trap '"$terraform" -chdir="$work/fleet" destroy -auto-approve -no-color >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

. "$root/bench/lib.sh"
dev_provider "$root" "$work"

mkdir -p "$work/fleet"
cat >"$work/fleet/main.tf" <<TF
terraform {
  required_providers {
    a2a = { source = "a2a-terraform/a2a" }
  }
}
provider "a2a" {
  state_dir = "$work/state"
}
resource "a2a_agent" "fleet" {
  count  = $agents
  config = <<-EOT
    [agent]
    name        = "Query Agent \${count.index}"
    description = "agent \${count.index} of $agents"
  EOT
}
TF
# The query runs beside the configuration, as a user's would; its limit
# lets every agent through (Terraform's default stops at 100).
cat >"$work/fleet/fleet.tfquery.hcl" <<HCL
list "a2a_agent" "fleet" {
  provider = a2a
  limit    = $((agents + 1))
}
HCL
"$terraform" -chdir="$work/fleet" apply -auto-approve -no-color >/dev/null

# ms COMMAND...: the wall time of COMMAND in milliseconds; it must succeed.
ms() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

plan=() query=() generate=()
for _ in $(seq "$runs"); do
  plan+=("$(ms "$terraform" -chdir="$work/fleet" plan -no-color -detailed-exitcode)")
  query+=("$(ms "$terraform" -chdir="$work/fleet" query -no-color)")
  rm -f "$work/fleet/generated.tf"
  generate+=("$(ms "$terraform" -chdir="$work/fleet" query -no-color -generate-config-out=generated.tf)")
  # Two of each agent would not plan.
  imports=$(grep -c '^import {' "$work/fleet/generated.tf")
  rm -f "$work/fleet/generated.tf"
  [[ $imports == "$agents" ]] || { echo "the generated config imports $imports agents, not $agents" >&2; exit 1; }
done

median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
p=$(median "${plan[@]}")
ratio() { awk -v a="$1" -v b="$p" 'BEGIN { printf "%.2f", a / b }'; }
q=$(median "${query[@]}")
g=$(median "${generate[@]}")
echo "$agents running agents, local adapter, $("$terraform" version | head -n1), median of $runs runs:"
echo "  terraform plan (baseline):            ${p} ms"
echo "  terraform query:                      ${q} ms ($(ratio "$q")x plan)"
echo "  terraform query -generate-config-out: ${g} ms ($(ratio "$g")x plan)"
