# Adopts the allowlist of this name kept in the provider block's state dir.
import {
  to       = a2a_env_allowlist.llm
  identity = { id = "llm-credentials" }
}
