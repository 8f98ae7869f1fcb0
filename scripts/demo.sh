#!/usr/bin/env bash
# Applies (or destroys) examples/quickstart with the provider built from
# source, with no registry and no network:
#
#   scripts/demo.sh BIN_DIR DEMO_DIR            # apply and print the outputs
#   scripts/demo.sh BIN_DIR DEMO_DIR destroy    # tear everything down
#
# BIN_DIR holds terraform-provider-a2a and a2a-agent-host, the agent host
# it starts, as `make build` leaves them. DEMO_DIR receives everything the demo
# writes: a Terraform CLI config, a copy of the example with its Terraform
# state, and the provider's agent records and logs. Nothing is written to the
# source tree, the user's own Terraform CLI config or the home directory.
set -euo pipefail

usage() { echo "usage: $0 BIN_DIR DEMO_DIR [destroy]" >&2; exit 2; }
[[ $# -eq 2 || ( $# -eq 3 && $3 == destroy ) ]] || usage

root="$(cd "$(dirname "$0")/.." && pwd)"
bin_dir="$(cd "$1" && pwd)"
mkdir -p "$2"
demo_dir="$(cd "$2" && pwd)"
action="${3:-apply}"
example="$root/examples/quickstart"
work="$demo_dir/quickstart"

command -v terraform >/dev/null || { echo "terraform is not on PATH: install it to run the demo" >&2; exit 1; }

# A CLI config of the demo's own makes Terraform use the provider in
# BIN_DIR without installing it, so neither 'terraform init' nor a registry
# is needed; writing it checks that BIN_DIR holds both executables.
"$root/scripts/dev-config.sh" "$bin_dir" "$demo_dir/terraformrc" >/dev/null

# Only this script's terraform calls see these.
tf() {
  TF_CLI_CONFIG_FILE="$demo_dir/terraformrc" \
    TF_DATA_DIR="$demo_dir/terraform-data" \
    TF_IN_AUTOMATION=1 \
    CHECKPOINT_DISABLE=1 \
    terraform -chdir="$work" "$@"
}

# The greeter's env allowlist lets GREETING through; the agent host expands
# it in the greeter's config when the agent starts.
export GREETING="${GREETING:-Hello from make demo}"

if [[ $action == destroy ]]; then
  if [[ ! -f "$work/terraform.tfstate" ]]; then
    echo "Nothing to destroy: no demo state in $work."
    exit 0
  fi
  tf destroy -auto-approve -input=false
  echo
  echo "The demo agents are gone. Remove $demo_dir to forget the demo entirely."
  exit 0
fi

# The example runs from a copy so that its Terraform state and the agents'
# state dir (.a2a-state next to main.tf) stay in DEMO_DIR. The copy is
# refreshed on every run, so edits to the example take effect.
mkdir -p "$work"
rm -f "$work"/*.tf "$work"/*.toml
cp "$example"/*.tf "$example"/*.toml "$work/"

tf apply -auto-approve -input=false

# apply has printed the outputs: endpoints, card URLs and each card's skills.
echo
echo "The agents keep running. Send the greeter a message (it answers with a task echoing it):"
echo
echo "  $(tf output -raw send_message_curl)"
echo
echo "or send the echo agent one with the A2A Go SDK's a2a tool ('make a2a-tool' builds it into bin/):"
echo
echo "  PATH=\"$root/bin:\$PATH\" $(tf output -raw send_message_a2a)"
echo
echo "Use the provider built from source in a configuration of your own: make dev-config"
echo "Tear the demo down with: make demo-destroy"
