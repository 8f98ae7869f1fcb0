package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// agentIDFunction is provider::a2a::agent_id, the id an agent name gives:
// what an import block or another configuration names an agent by before
// the agent's own resource is in reach.
type agentIDFunction struct{}

var _ function.Function = agentIDFunction{}

func newAgentIDFunction() function.Function { return agentIDFunction{} }

func (agentIDFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "agent_id"
}

func (agentIDFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "The agent id the provider gives an agent of this name",
		MarkdownDescription: "Returns the id `a2a_agent` gives an agent whose config sets `agent.name` to `name` and no `agent.id`: " +
			"the name spelled with the letters `a`-`z` (accents dropped), digits and single hyphens, such as `echo-agent` for " +
			"\"Echo Agent\" and `cafe-agent` for \"Café Agent\". It is the id `terraform import` and an `import` block take. " +
			"A name the provider refuses (empty, holding a `${VAR}` reference, with no letters or digits it can spell, or whose " +
			"id would be longer than 63 characters) is an error naming the problem, as the plan of such an agent would be.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "name",
				MarkdownDescription: "The agent's `agent.name`.",
			},
		},
		Return: function.StringReturn{},
	}
}

func (agentIDFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var name string
	resp.Error = req.Arguments.Get(ctx, &name)
	if resp.Error != nil {
		return
	}
	id, err := agentconfig.IDOfName(name)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	resp.Error = resp.Result.Set(ctx, id)
}
