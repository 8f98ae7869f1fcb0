# The id a2a_agent gives an agent of a name, known at plan time: what an
# import block adopts an agent the runtime already records by,
#
#   import {
#     to = a2a_agent.billing
#     id = provider::a2a::agent_id("Billing Agent")
#   }
#
# and what another configuration can refer to the agent by.
output "billing_agent_id" {
  value = provider::a2a::agent_id("Billing Agent") # "billing-agent"
}

output "cafe_agent_id" {
  value = provider::a2a::agent_id("Café Agent (EU)") # "cafe-agent-eu"
}
