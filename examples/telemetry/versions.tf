terraform {
  required_providers {
    a2a = {
      source = "a2a-terraform/a2a"
    }
  }
}
