# An agent is imported by its id, the slug of its agent.name.
terraform import a2a_agent.echo echo-agent
