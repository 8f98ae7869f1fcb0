terraform {
  required_providers {
    a2a = {
      source = "a2a-terraform/a2a"
    }
  }
}

# Agents run as local processes unless an adapter block says otherwise. The
# runtime state lives in $XDG_STATE_HOME/terraform-provider-a2a by default.
provider "a2a" {
  local {
    stop_grace_period = "10s"
  }
}

# Agents on a Docker or Podman engine, with hardened containers.
provider "a2a" {
  alias = "containers"

  container {
    host = "unix:///var/run/docker.sock"
  }
}
