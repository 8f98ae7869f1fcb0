# A smoke test: every apply that creates or updates the agent sends it a
# message and fails when the agent does not answer. Send it again at any
# time with: terraform apply -invoke=action.a2a_message.smoke
variable "greeter_token" {
  type      = string
  sensitive = true
}

resource "a2a_agent" "greeter" {
  config = <<-EOT
    [agent]
    name = "Greeter"
    [auth]
    bearer_token = "$${GREETER_TOKEN}"
  EOT
  env_wo = { GREETER_TOKEN = var.greeter_token }

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.a2a_message.smoke]
    }
  }
}

action "a2a_message" "smoke" {
  config {
    url     = a2a_agent.greeter.endpoint
    text    = "ping"
    headers = { Authorization = "Bearer ${var.greeter_token}" }
    timeout = "30s"
  }
}
