# Queries on its own (versions.tf names the provider; the provider block is
# the default one, whose state dir is the default). In a .tfquery.hcl file
# beside a configuration whose provider block selects
# the runtime: `terraform query` lists the agents, and
# `terraform query -generate-config-out=agents.tf` writes a resource and an
# import block for each, which `terraform apply` then imports.

# Every agent the runtime holds.
list "a2a_agent" "fleet" {
  provider = a2a
}

# The billing agents that are not healthy, with what an import of each reads.
list "a2a_agent" "billing_down" {
  provider         = a2a
  include_resource = true

  config {
    id_prefix = "billing-"
    health    = ["unhealthy", "stopped"]
  }
}
