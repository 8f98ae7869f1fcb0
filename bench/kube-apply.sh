#!/usr/bin/env bash
# Measures `terraform apply` of N agents (default 10) on the kubernetes
# adapter, until every card answers, against `kubectl apply` of the very
# objects the provider created (Deployments, Services, ConfigMaps and
# Secrets, copied into a namespace of their own) until every Deployment is
# Available; a config change of every agent, which rolls each over to a
# new pod, against a change of every Deployment's pod template (kubectl set
# env) and `kubectl rollout status` of each; and `terraform destroy`
# against `kubectl delete` until every pod is gone. The two alternate for
# several rounds in one run, and the medians' ratio is printed.
#
# Usage: bench/kube-apply.sh [agents] [rounds]
# Environment:
#   KUBECONFIG       the cluster (required; it must be up)
#   A2A_KUBE_IMAGE   the agents' base image, whose entrypoint is the agent
#                    host (a2a-agent-host) built from this tree, which the
#                    cluster has or can pull (required)
#   A2A_KUBE_PULL    its image_pull_policy (default IfNotPresent)
#   KUBECTL          kubectl to run (default: kubectl on PATH)
# Needs terraform, jq and go.
set -euo pipefail
# A command timed in $(...) that fails must fail the run, not be timed.
shopt -s inherit_errexit
agents="${1:-10}"
rounds="${2:-3}"
: "${KUBECONFIG:?set KUBECONFIG to the cluster to measure on}"
: "${A2A_KUBE_IMAGE:?set A2A_KUBE_IMAGE to an agent image the cluster has (see bench/README.md)}"
pull="${A2A_KUBE_PULL:-IfNotPresent}"
kubectl="${KUBECTL:-kubectl}"
for tool in terraform jq go "$kubectl"; do
  command -v "$tool" >/dev/null || { echo "$tool is not on PATH" >&2; exit 1; }
done
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
suffix="$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
tf_ns="a2a-bench-tf-$suffix" kc_ns="a2a-bench-kc-$suffix"
selector="app.kubernetes.io/managed-by=terraform-provider-a2a"

cleanup() {
  terraform -chdir="$work/tf" destroy -auto-approve -no-color >/dev/null 2>&1 || true
  "$kubectl" delete namespace "$tf_ns" "$kc_ns" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

. "$root/bench/lib.sh"
dev_provider "$root" "$work"

# Pods are refused until a namespace's default service account exists.
for ns in "$tf_ns" "$kc_ns"; do
  "$kubectl" create namespace "$ns" >/dev/null
  until "$kubectl" -n "$ns" get serviceaccount default >/dev/null 2>&1; do sleep 0.2; done
done

mkdir -p "$work/tf"
cat >"$work/tf/main.tf" <<TF
terraform {
  required_providers {
    a2a = { source = "a2a-terraform/a2a" }
  }
}
provider "a2a" {
  state_dir = "$work/state"
  kubernetes {
    namespace         = "$tf_ns"
    base_image        = "$A2A_KUBE_IMAGE"
    image_pull_policy = "$pull"
  }
}
variable "revision" {
  type    = number
  default = 0
}
resource "a2a_agent" "fleet" {
  count  = $agents
  config = <<-EOT
    [agent]
    name        = "Bench Agent \${count.index}"
    description = "agent \${count.index} of $agents, revision \${var.revision}"
  EOT
}
TF
tf() { terraform -chdir="$work/tf" "$@" -auto-approve -no-color >/dev/null; }

# The kubectl side applies what the provider created, as a user would
# write it: without status and server-set fields, in its own namespace,
# and what the pods read before the Deployments, as kubectl apply creates
# them in order (a pod whose ConfigMap is missing waits out a back-off).
tf apply
"$kubectl" -n "$tf_ns" get configmaps,secrets,services,deployments -l "$selector" -o json |
  jq --arg ns "$kc_ns" '.items |= map(
      del(.status)
      | .metadata |= {name, labels, annotations: ((.annotations // {}) | del(."deployment.kubernetes.io/revision")), namespace: $ns}
      | if .kind == "Service" then .spec |= del(.clusterIP, .clusterIPs) else . end)' >"$work/objects.json"
tf destroy
if [[ $(jq '.items | length' "$work/objects.json") != $((agents * 4)) ]]; then
  echo "expected $((agents * 4)) objects of $agents agents, found $(jq '.items | length' "$work/objects.json")" >&2
  exit 1
fi

kc_apply() {
  "$kubectl" apply -f "$work/objects.json" >/dev/null
  "$kubectl" -n "$kc_ns" wait --for=condition=Available deployment --all --timeout=5m >/dev/null
}
# kc_roll REVISION changes every Deployment's pod template and waits until
# each has rolled out.
kc_roll() {
  local d
  "$kubectl" -n "$kc_ns" set env deployment --all "BENCH_REVISION=$1" >/dev/null
  for d in $("$kubectl" -n "$kc_ns" get deployments -o name); do
    "$kubectl" -n "$kc_ns" rollout status "$d" --timeout=5m >/dev/null
  done
}
kc_delete() {
  "$kubectl" delete -f "$work/objects.json" --cascade=foreground --wait >/dev/null
  while [[ -n $("$kubectl" -n "$kc_ns" get pods -l "$selector" -o name) ]]; do sleep 0.25; done
}

# ms CMD...: runs CMD and prints how many milliseconds it took.
ms() {
  local start end
  start=$(date +%s%N)
  "$@"
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

tf_up=() tf_roll=() tf_down=() kc_up=() kc_roll=() kc_down=()
for round in $(seq "$rounds"); do
  # Whichever goes first in one round goes second in the next.
  if ((round % 2)); then order="tf kc"; else order="kc tf"; fi
  for side in $order; do
    if [[ $side == tf ]]; then
      up=$(ms tf apply) roll=$(ms tf apply -var "revision=$round") down=$(ms tf destroy)
      tf_up+=("$up") tf_roll+=("$roll") tf_down+=("$down")
      echo "round $round: terraform apply ${up} ms, config change ${roll} ms, terraform destroy ${down} ms"
    else
      up=$(ms kc_apply) roll=$(ms kc_roll "$round") down=$(ms kc_delete)
      kc_up+=("$up") kc_roll+=("$roll") kc_down+=("$down")
      echo "round $round: kubectl apply + wait ${up} ms, set env + rollout status ${roll} ms, kubectl delete + wait ${down} ms"
    fi
  done
done

a=$(median "${tf_up[@]}") b=$(median "${kc_up[@]}") c=$(median "${tf_down[@]}") d=$(median "${kc_down[@]}")
e=$(median "${tf_roll[@]}") f=$(median "${kc_roll[@]}")
echo "$agents agents, median of $rounds rounds:"
echo "  up:   terraform apply ${a} ms, kubectl apply + wait available ${b} ms: $(ratio "$a" "$b")x"
echo "  roll: terraform apply of a config change ${e} ms, kubectl set env + rollout status ${f} ms: $(ratio "$e" "$f")x"
echo "  down: terraform destroy ${c} ms, kubectl delete + wait pods gone ${d} ms: $(ratio "$c" "$d")x"
