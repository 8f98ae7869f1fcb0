# Two configurations of the provider; versions.tf names it. Applied as it is,
# with no agent declared, this needs nothing: Terraform configures no
# provider that no resource or data source uses. An agent or data source
# declared with `provider = a2a.containers` needs a Docker engine answering
# on /var/run/docker.sock (for a Podman engine, set host to its socket).

# Agents run as local processes unless an adapter block says otherwise. The
# runtime state lives in $XDG_STATE_HOME/terraform-provider-a2a by default.
# Each agent's supervisor restarts it when it exits on its own (here only
# after a failure, not after a clean exit); an agent's restart_count says
# how often it has.
provider "a2a" {
  local {
    stop_grace_period = "10s"
    restart_policy    = "on-failure"
  }
}

# Agents on a Docker or Podman engine, with hardened containers.
provider "a2a" {
  alias = "containers"

  container {
    host = "unix:///var/run/docker.sock"
  }
}
