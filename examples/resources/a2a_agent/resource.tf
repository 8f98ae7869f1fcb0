# Needs, for the assistant: OPENAI_API_KEY in the environment of terraform
# apply (and OPENAI_BASE_URL for an OpenAI-compatible endpoint other than
# OpenAI's), and its bearer token in the ephemeral variable assistant_token
# (TF_VAR_assistant_token=..., or -var assistant_token=...). versions.tf
# names the provider.

# An echo agent: no credentials, nothing to allow.
resource "a2a_agent" "echo" {
  config = <<-EOT
    [agent]
    name        = "Echo Agent"
    description = "Repeats what it is told"
    version     = "1.0.0"

    [[skills]]
    id          = "echo"
    name        = "Echo"
    description = "Returns the message it receives"
    tags        = ["demo"]
  EOT
}

# An LLM agent whose key comes from the provider's environment at start, and
# whose bearer token is a write-only value from an ephemeral variable. $${...}
# escapes Terraform's own interpolation: the agent host expands the references,
# so neither value reaches Terraform state.
variable "assistant_token" {
  type      = string
  ephemeral = true
}

resource "a2a_agent" "assistant" {
  # The reference carries the allowlist's planned variables, so a variable
  # added to it can be used here in the same apply.
  env_allowlist = a2a_env_allowlist.llm.reference

  config = <<-EOT
    [agent]
    name        = "Assistant"
    description = "Answers questions"

    [handler]
    type = "llm"

    [handler.llm]
    base_url      = "$${OPENAI_BASE_URL:-https://api.openai.com/v1}"
    model         = "gpt-4o-mini"
    api_key       = "$${OPENAI_API_KEY}"
    system_prompt = "You are a concise assistant."

    [auth]
    bearer_token = "$${ASSISTANT_TOKEN}"
  EOT

  # Never stored in state; bump the version to roll out a new token.
  env_wo = {
    ASSISTANT_TOKEN = var.assistant_token
  }
  env_wo_version = 1

  timeouts {
    create = "3m"
  }
}

resource "a2a_env_allowlist" "llm" {
  name      = "llm-credentials"
  variables = ["OPENAI_API_KEY", "OPENAI_BASE_URL"]
}

output "assistant_card_url" {
  value = a2a_agent.assistant.card_url
}
