# An agent that lets in only callers holding a token from an identity
# provider: a JWT signed by a key of the key set below, issued by the issuer
# below for the audience below, and granting the scope agents:call.
#
#   terraform apply
#   TOKEN=<a token of your identity provider> terraform output -raw send_message_curl | sh
#   TOKEN=<a token also granting billing:refund> terraform output -raw refund_curl | sh
#
# jwks holds a sample public key whose private half is not published, so
# until you put your identity provider's key set there (or replace it with
# jwks_url, which the agent fetches and refreshes), every call is refused
# as unauthenticated: an HTTP 401.

resource "a2a_agent" "billing" {
  config = <<-EOT
    [agent]
    name        = "Billing Agent"
    description = "Answers only callers with a token of the billing identity provider."

    [handler]
    type = "echo"

    [auth.jwt]
    issuer          = "https://idp.example.com/"
    audiences       = ["billing-agents"]
    jwks            = '{"keys":[{"use":"sig","kty":"EC","kid":"example-key-1","crv":"P-256","alg":"ES256","x":"KfZbE7IJipshM19Al2ZvHaa9vVKWg0ULazJ19nPYd7Y","y":"K3FUxwmrYBDLWfRlpRwwEdrm6IBu5gzG68fay_v2eo0"}]}'
    algorithms      = ["ES256", "RS256"]
    required_scopes = ["agents:call"]

    [[skills]]
    id          = "invoice"
    name        = "Invoice"
    description = "Drafts an invoice."
    tags        = ["billing"]

    # Listed only in the extended card, which GetExtendedAgentCard gives
    # authenticated callers.
    [[skills]]
    id          = "refund"
    name        = "Refund"
    description = "Refunds a payment."
    tags        = ["billing"]
    extended    = true
    scopes      = ["billing:refund"]
  EOT
}

locals {
  curl = "curl -s -w '\\nHTTP %%{http_code}\\n' -H \"Authorization: Bearer $TOKEN\" -H 'Content-Type: application/json' -H 'A2A-Version: 1.0'"
  invoice = jsonencode({
    jsonrpc = "2.0"
    id      = 1
    method  = "SendMessage"
    params = {
      message = { role = "ROLE_USER", messageId = "jwt-example", parts = [{ text = "Invoice order 42" }] }
    }
  })
  # A message for the refund skill names it under the card's skill
  # extension: the token must then hold billing:refund too.
  refund = jsonencode({
    jsonrpc = "2.0"
    id      = 2
    method  = "SendMessage"
    params = {
      message = {
        role     = "ROLE_USER", messageId = "jwt-refund", parts = [{ text = "Refund order 42" }]
        metadata = { "https://github.com/a2a-terraform/terraform-provider-a2a/extensions/skill/v1" = "refund" }
      }
    }
  })
}

output "send_message_curl" {
  description = "Sends the agent a message with the token in TOKEN. Run: TOKEN=... terraform output -raw send_message_curl | sh"
  value       = "${local.curl} -d '${local.invoice}' ${a2a_agent.billing.endpoint}"
}

output "refund_curl" {
  description = "Asks the refund skill, with the token in TOKEN, which must hold billing:refund. Run: TOKEN=... terraform output -raw refund_curl | sh"
  value       = "${local.curl} -d '${local.refund}' ${a2a_agent.billing.endpoint}"
}

output "card_url" {
  description = "The agent's public card, which declares the JWT bearer scheme."
  value       = a2a_agent.billing.card_url
}
