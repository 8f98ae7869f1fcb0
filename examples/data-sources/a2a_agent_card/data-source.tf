# Read the card of a running agent: its base URL is enough.
data "a2a_agent_card" "planner" {
  url = "https://planner.example.com"

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
