# An agent that serves its metrics to Prometheus on this machine, and can
# send traces and metrics to an OpenTelemetry collector.
#
#   terraform apply
#   terraform output -raw send_message_curl | sh
#   curl -s $(terraform output -raw metrics_url) | grep a2a_server
#
# For an OpenTelemetry collector, add otlp_endpoint to [telemetry] (its
# OTLP/HTTP base URL, such as "http://127.0.0.1:4318") and apply again:
# each call becomes a span, a child of the caller's trace when it sends a
# W3C traceparent header.

locals {
  # Where Prometheus scrapes the agent, this machine only: [telemetry]
  # metrics_listen below, spelled the same.
  metrics_listen = "127.0.0.1:9464"
}

resource "a2a_agent" "traced" {
  config = <<-EOT
    [agent]
    name = "Traced Echo"

    [handler]
    type = "echo"

    [telemetry]
    metrics_listen  = "127.0.0.1:9464"
    export_interval = "15s"
  EOT
}

locals {
  hello = jsonencode({
    jsonrpc = "2.0"
    id      = 1
    method  = "SendMessage"
    params = {
      message = { role = "ROLE_USER", messageId = "telemetry-example", parts = [{ text = "Hi there" }] }
    }
  })
}

output "send_message_curl" {
  description = "Sends the agent a message with curl. Run: terraform output -raw send_message_curl | sh"
  value       = "curl -s -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' -d '${local.hello}' ${a2a_agent.traced.endpoint}"
}

output "metrics_url" {
  description = "Where Prometheus scrapes the agent."
  value       = "http://${local.metrics_listen}/metrics"
}
