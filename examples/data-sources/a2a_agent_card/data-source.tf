# Applies on its own: it runs the agent whose card it reads. The preview
# reads agent.toml, next to this file; versions.tf names the provider.
# external-agent.tf.example reads the card of an agent that runs elsewhere.

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

# Read the card of an agent this configuration runs: its card URL is enough.
data "a2a_agent_card" "greeter" {
  url = a2a_agent.greeter.card_url

  retry {
    attempts     = 5
    min_delay_ms = 500
    max_delay_ms = 5000
  }
}

# Derive, offline, the card an agent config would publish.
data "a2a_agent_card" "preview" {
  config   = file("${path.module}/agent.toml")
  endpoint = "http://127.0.0.1:8080"
}

output "greeter_endpoint" {
  value = data.a2a_agent_card.greeter.interfaces[0].url
}

output "preview_skills" {
  value = [for s in data.a2a_agent_card.preview.skills : s.id]
}
