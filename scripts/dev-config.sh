#!/usr/bin/env bash
# Writes a Terraform CLI config that makes terraform use the provider built
# from source for a2a-terraform/a2a, in any configuration and without
# terraform init or a registry, and prints the line that selects it:
#
#   scripts/dev-config.sh BIN_DIR FILE    # prints: export TF_CLI_CONFIG_FILE=FILE
#
# BIN_DIR holds terraform-provider-a2a and the agent host it starts,
# a2a-agent-host, as `make build` leaves them. Providers other than a2a install as
# usual (the direct {} block). Only the export line goes to stdout, so that
# eval "$(scripts/dev-config.sh BIN_DIR FILE)" selects the config.
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 BIN_DIR FILE" >&2; exit 2; }
bin_dir="$(cd "$1" && pwd)"
mkdir -p "$(dirname "$2")"
file="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
for exe in terraform-provider-a2a a2a-agent-host; do
  [[ -x "$bin_dir/$exe" ]] || { echo "$bin_dir/$exe is missing: run 'make build' first" >&2; exit 1; }
done

# dev_overrides makes terraform use the binary in BIN_DIR as it is, so it
# is neither installed by terraform init nor recorded in the lock file;
# terraform warns about the override on every command.
cat >"$file" <<CONFIG
provider_installation {
  dev_overrides {
    "registry.terraform.io/a2a-terraform/a2a" = "$bin_dir"
  }
  direct {}
}
CONFIG

echo "export TF_CLI_CONFIG_FILE=$file"
