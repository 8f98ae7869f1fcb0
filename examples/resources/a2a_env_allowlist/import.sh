# An env allowlist is imported by its name.
terraform import a2a_env_allowlist.llm llm-credentials
