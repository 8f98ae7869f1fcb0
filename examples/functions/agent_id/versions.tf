terraform {
  # Provider-defined functions came with Terraform 1.8.
  required_version = ">= 1.8"

  required_providers {
    a2a = {
      source = "a2a-terraform/a2a"
    }
  }
}
