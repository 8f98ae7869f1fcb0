terraform {
  # env_wo is a write-only argument, which Terraform 1.11 introduced.
  required_version = ">= 1.11"

  required_providers {
    a2a = {
      source = "a2a-terraform/a2a"
    }
  }
}
