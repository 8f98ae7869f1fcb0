# Applies on its own; versions.tf names the provider.

# Variables of the provider's environment that agents naming this allowlist
# may reference as ${VAR}. Only the names are stored; values are read when an
# agent starts.
resource "a2a_env_allowlist" "llm" {
  name        = "llm-credentials"
  description = "Chat-completions endpoint and key for LLM agents"
  variables   = ["OPENAI_API_KEY", "OPENAI_BASE_URL"]
}
