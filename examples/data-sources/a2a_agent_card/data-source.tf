# Needs, for the planner: an A2A agent at var.planner_url that signs its
# card, the public half of its signing key in planner-signing-key.pub.pem
# next to this file, and PLANNER_AUTHORIZATION in the environment of
# terraform apply. The preview reads agent.toml, next to this file;
# versions.tf names the provider.

variable "planner_url" {
  description = "Base URL of the planner agent."
  type        = string
  default     = "https://planner.example.com"
}

# Read the card of a running agent: its base URL is enough.
data "a2a_agent_card" "planner" {
  url = var.planner_url

  # The header's value is read from the provider's environment when the card
  # is fetched, so the token never reaches Terraform state.
  request_headers_from_env = {
    Authorization = "PLANNER_AUTHORIZATION" # e.g. export PLANNER_AUTHORIZATION="Bearer <token>"
  }

  retry {
    attempts     = 5
    min_delay_ms = 500
    max_delay_ms = 5000
  }

  # Refuse a card its publisher did not sign.
  verify_signature {
    public_keys_pem = [file("${path.module}/planner-signing-key.pub.pem")]
  }
}

# An agent this configuration runs.
resource "a2a_agent" "greeter" {
  config = <<-EOT
    [agent]
    name        = "Greeter"
    description = "Greets whoever writes to it"
    version     = "1.0.0"

    [[skills]]
    id          = "greet"
    name        = "Greet"
    description = "Answers any message with a greeting"
    tags        = ["greeting"]
  EOT
}

# Read the card of an agent this configuration runs.
data "a2a_agent_card" "greeter" {
  url = a2a_agent.greeter.card_url
}

# Derive, offline, the card an agent config would publish.
data "a2a_agent_card" "preview" {
  config   = file("${path.module}/agent.toml")
  endpoint = "http://127.0.0.1:8080"
}

output "planner_skills" {
  value = [for s in data.a2a_agent_card.planner.skills : s.id]
}

output "greeter_endpoint" {
  value = data.a2a_agent_card.greeter.interfaces[0].url
}
