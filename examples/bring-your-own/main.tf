# Quickstart, second part: an agent you bring, next to a built-in one, both
# run as local processes.
#
# Needs: the A2A Go SDK's a2a tool (`make a2a-tool` builds bin/a2a offline;
# or go install github.com/a2aproject/a2a-go/v2/cmd/a2a@v2.4.0), and port
# 9301 free, which echo-card.json names. With the provider built from source
# (`make dev-config` prints the line that selects it):
#
#   terraform apply -var a2a_tool="$(cd ../.. && pwd)/bin/a2a"
#
# The brought agent is the official A2A Go SDK's `a2a serve`, a real A2A
# agent nobody here wrote; any program that serves its own Agent Card runs
# the same way (see the "Bring your own agent" guide). versions.tf names the
# provider.

variable "state_dir" {
  description = "Where the provider keeps its agent records and logs. Empty: .a2a-state next to this file."
  type        = string
  default     = ""
}

variable "a2a_tool" {
  description = "The A2A Go SDK's a2a tool: a name found on PATH, or its path."
  type        = string
  default     = "a2a"
}

provider "a2a" {
  state_dir = var.state_dir != "" ? var.state_dir : abspath("${path.module}/.a2a-state")
}

# The built-in agent host, as in the first quickstart.
resource "a2a_agent" "builtin" {
  config = <<-EOT
    [agent]
    name        = "builtin-echo"
    description = "The provider's own echo agent"

    [[skills]]
    id   = "echo"
    name = "Echo"
    tags = ["echo"]
  EOT
}

# An agent brought as a program. The runtime fills in $${HOST} and $${PORT}
# when it starts it ($${...} keeps Terraform from interpolating them); the
# card it serves, echo-card.json, names the port it listens on.
resource "a2a_agent" "sdk_echo" {
  config = <<-EOT
    [agent]
    name = "sdk-echo"

    [runtime]
    command     = ["${var.a2a_tool}", "serve", "--echo", "--transport", "jsonrpc",
                   "--host", "$${HOST}", "--port", "$${PORT}", "--card", "echo-card.json"]
    port        = 9301
    working_dir = "${abspath(path.module)}"
  EOT
}

# Both cards, read from the running agents.
data "a2a_agent_card" "builtin" {
  url = a2a_agent.builtin.card_url
}

data "a2a_agent_card" "sdk_echo" {
  url = a2a_agent.sdk_echo.card_url
}

output "agents" {
  description = "Each agent's endpoint, health and the name its card gives."
  value = {
    builtin  = { endpoint = a2a_agent.builtin.endpoint, health = a2a_agent.builtin.health, card_name = data.a2a_agent_card.builtin.name }
    sdk_echo = { endpoint = a2a_agent.sdk_echo.endpoint, health = a2a_agent.sdk_echo.health, card_name = data.a2a_agent_card.sdk_echo.name }
  }
}
