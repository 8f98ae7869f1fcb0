# An agent run for production on a shared cluster: three pods or more,
# spread across nodes, at most one disrupted at a time, scaled on CPU, run
# as a service account of its own, and reached through a gateway.
#
# Needs: a kubeconfig (KUBECONFIG) whose user may manage Deployments,
# Services, ConfigMaps, Secrets, PodDisruptionBudgets and
# HorizontalPodAutoscalers in the namespace; the namespace and the service
# account "search-agent" in it (for instance bound to a cloud identity); the
# cluster's metrics API (metrics-server), which the autoscaler reads; and
# the agent host's image, pushed where the cluster pulls from.

variable "namespace" {
  type    = string
  default = "agents"
}

variable "base_image" {
  description = "The agent host's image, as the cluster pulls it."
  type        = string
}

variable "image_pull_policy" {
  type    = string
  default = "IfNotPresent"
}

provider "a2a" {
  kubernetes {
    namespace         = var.namespace
    base_image        = var.base_image
    image_pull_policy = var.image_pull_policy
  }
}

resource "a2a_agent" "search" {
  config = <<-EOT
    [agent]
    name        = "Search"
    description = "Answers questions about the catalogue"
    version     = "1.0.0"

    [[skills]]
    id   = "search"
    name = "Search the catalogue"
  EOT

  kubernetes = {
    labels          = { team = "search" }
    service_account = "search-agent"

    # Three pods at the least, six at the most, kept near 70% of the CPU
    # they request; replicas then reads how many run.
    autoscaling = { min_replicas = 3, max_replicas = 6, target_cpu_utilization = 70 }
    resources   = { cpu_request = "100m", memory_limit = "256Mi" }

    # The defaults for more than one pod, written out: spread across nodes,
    # and one pod at a time taken by a node's drain.
    topology_spread   = { topology_key = "kubernetes.io/hostname", when_unsatisfiable = "ScheduleAnyway", max_skew = 1 }
    disruption_budget = { max_unavailable = "1" }

    # For a gateway that routes A2A to the agent: HTTP/2 without TLS to its
    # pods carries JSON-RPC, HTTP+JSON and gRPC alike.
    service = {
      app_protocol = "kubernetes.io/h2c"
      annotations  = { "gateway.example.com/route" = "a2a-search" }
    }
  }
}

output "endpoint" {
  description = "Where the agent is reached inside the cluster."
  value       = a2a_agent.search.endpoint
}

output "replicas" {
  description = "How many pods the agent runs now."
  value       = a2a_agent.search.replicas
}
