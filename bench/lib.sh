# Shared by the bench scripts, which source it. dev_provider ROOT WORK
# builds the provider and the agent host of the tree at ROOT into WORK/bin,
# as a release builds them (static), and makes every terraform the script
# runs use that build through a CLI config of its own (scripts/dev-config.sh):
# no terraform init, no registry, the user's own CLI config left alone.

dev_provider() { # ROOT WORK
  local root=$1 work=$2
  CGO_ENABLED=0 go build -o "$work/bin/terraform-provider-a2a" "$root"
  CGO_ENABLED=0 go build -o "$work/bin/a2a-agent-host" "$root/cmd/a2a-agent-host"
  eval "$("$root/scripts/dev-config.sh" "$work/bin" "$work/terraformrc")"
  export TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
}
