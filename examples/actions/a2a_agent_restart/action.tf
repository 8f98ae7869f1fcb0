# After rotating the token in the environment Terraform runs in, restart
# the agent so that it takes the new value up, without replacing it:
#   export GREETER_TOKEN=...   # the new value
#   terraform apply -invoke=action.a2a_agent_restart.greeter
resource "a2a_env_allowlist" "greeter" {
  name      = "greeter-token"
  variables = ["GREETER_TOKEN"]
}

resource "a2a_agent" "greeter" {
  config = <<-EOT
    [agent]
    name = "Greeter"
    [auth]
    bearer_token = "$${GREETER_TOKEN}"
  EOT
  env_allowlist = a2a_env_allowlist.greeter.reference
}

action "a2a_agent_restart" "greeter" {
  config {
    id      = a2a_agent.greeter.id
    timeout = "5m"
  }
}
