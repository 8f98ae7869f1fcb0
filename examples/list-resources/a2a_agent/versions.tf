terraform {
  # terraform query and list blocks came with Terraform 1.14.
  required_version = ">= 1.14"

  required_providers {
    a2a = {
      source = "a2a-terraform/a2a"
    }
  }
}
