# An agent is imported by its id, the slug of its agent.name. Only agents this
# provider's runtime recorded (in its state dir, or labelled on the engine)
# can be imported; an agent started by hand with a2a-agent-host cannot.
terraform import a2a_agent.echo echo-agent
