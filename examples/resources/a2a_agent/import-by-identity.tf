# Adopts the agent the provider block's runtime holds under this id, the id
# of "Echo Agent" (provider::a2a::agent_id("Echo Agent") spells it).
import {
  to       = a2a_agent.echo
  identity = { id = "echo-agent" }
}
