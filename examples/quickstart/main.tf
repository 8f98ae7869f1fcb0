# Quickstart: two agents on this machine, run as local processes.
#
#   GREETING="Hello" terraform apply
#   terraform output -raw send_message_curl | sh    # talk to the greeter
#
# `make demo` runs this with the provider built from source; `make
# dev-config` prints how to run it, or any configuration, with that build.
# versions.tf names the provider.

variable "state_dir" {
  description = "Where the provider keeps its agent records and logs. Empty: .a2a-state next to this file, so the example leaves nothing in your home directory."
  type        = string
  default     = ""
}

provider "a2a" {
  state_dir = var.state_dir != "" ? var.state_dir : abspath("${path.module}/.a2a-state")
}

# The only environment variable the greeter may see. Its value comes from the
# environment of `terraform apply` and is never written to state.
resource "a2a_env_allowlist" "greeter" {
  name        = "greeter"
  variables   = ["GREETING"]
  description = "What the greeter may read from the environment."
}

# An inline config. Terraform interpolates ${...} in strings, so the
# reference the agent host expands is written $${GREETING} here.
# env_allowlist refers to the allowlist's reference, which carries the
# variables it is about to have: a variable added there can be used here in
# the same apply.
resource "a2a_agent" "greeter" {
  env_allowlist = a2a_env_allowlist.greeter.reference
  config        = <<-EOT
    [agent]
    name        = "greeter"
    description = "Greets whoever writes to it: $${GREETING:-Hello}"
    version     = "1.0.0"

    [handler]
    type = "echo"

    [[skills]]
    id          = "greet"
    name        = "Greet"
    description = "Answers any message with a greeting."
    tags        = ["greeting"]
    examples    = ["Hi there"]
  EOT
}

# A config from a file: file() does not interpolate, so agent.toml is
# written exactly as the agent host reads it.
resource "a2a_agent" "echo" {
  config = file("${path.module}/agent.toml")
}

# The card the greeter publishes, fetched over HTTP once it is healthy.
data "a2a_agent_card" "greeter" {
  url = a2a_agent.greeter.card_url
}

# The card the echo agent publishes, read from the running agent too.
data "a2a_agent_card" "echo" {
  url = a2a_agent.echo.card_url
}

output "endpoints" {
  description = "Where each agent serves A2A JSON-RPC."
  value = {
    greeter = a2a_agent.greeter.endpoint
    echo    = a2a_agent.echo.endpoint
  }
}

output "card_urls" {
  description = "Where each agent publishes its Agent Card."
  value = {
    greeter = a2a_agent.greeter.card_url
    echo    = a2a_agent.echo.card_url
  }
}

output "greeter_description" {
  description = "The greeter's description, with GREETING expanded by the agent host."
  value       = data.a2a_agent_card.greeter.description
}

output "skills" {
  description = "Each agent's skills, as its card advertises them."
  value = {
    greeter = [for s in data.a2a_agent_card.greeter.skills : "${s.id}: ${s.description}"]
    echo    = [for s in data.a2a_agent_card.echo.skills : "${s.id}: ${s.description}"]
  }
}

# An A2A 1.0 SendMessage request: JSON-RPC, posted to an agent's endpoint.
locals {
  hello = jsonencode({
    jsonrpc = "2.0"
    id      = 1
    method  = "SendMessage"
    params = {
      message = { role = "ROLE_USER", messageId = "quickstart-hello", parts = [{ text = "Hi there" }] }
    }
  })
}

output "send_message_curl" {
  description = "Sends the greeter a message with curl, which prints the JSON-RPC answer: a task whose artifact echoes it. Run: terraform output -raw send_message_curl | sh"
  value       = "curl -s -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' -d '${local.hello}' ${a2a_agent.greeter.endpoint}"
}

output "send_message_a2a" {
  description = "Sends the echo agent a message with the A2A Go SDK's a2a tool (make a2a-tool builds it into bin/). Run: terraform output -raw send_message_a2a | sh"
  value       = "a2a send ${a2a_agent.echo.endpoint} 'Hi there'"
}
