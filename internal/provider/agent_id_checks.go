package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// checkIDFree says, at plan, when an agent is to be created with an id the
// runtime already records for an agent of another name: two names that
// spell one id (such as "Café Agent" and "Cafe Agent"), or an [agent] id
// another config set. Create refuses it atomically, before making
// anything, so the question is only whether the plan fails first.
//
// For a new agent it warns. Terraform plans a configuration in normal mode
// before destroying it, and the provider is not told that plan is for a
// destroy: a new agent whose id this configuration's own agent holds (one
// of two that spell one id, the other created by an earlier apply) would
// otherwise fail the plan and so block the destroy of every agent. An
// agent replaced onto a taken id (replacing is true) is refused: apply
// would delete the agent it replaces, then fail to create this one.
//
// A recorded agent of the same name is left to Create. Terraform plans a
// tainted agent's replacement as a create of the very same id, with no
// prior state to tell it from a second resource declaring the agent, and
// destroys the tainted one first; an agent declared twice is refused by
// Create, which checks atomically as it creates (two concurrent applies).
func checkIDFree(ctx context.Context, rt agentruntime.Runtime, cfg *agentconfig.Config, replacing bool) diag.Diagnostics {
	var diags diag.Diagnostics
	id := cfg.ID()
	a, err := rt.Get(ctx, id)
	switch {
	case agentruntime.IsKind(err, agentruntime.KindNotFound), agentruntime.IsKind(err, agentruntime.KindDamaged):
		// Free, or a damaged record that Create provisions afresh.
		return diags
	case err != nil:
		diags.AddAttributeWarning(path.Root("config"), "Cannot tell whether agent id "+id+" is free",
			fmt.Sprintf("Reading agent %q from the runtime failed (%s). Apply refuses the agent if the id turns out to be taken.",
				id, agentruntime.Detail(err)))
		return diags
	case a.Name == cfg.Agent.Name:
		return diags
	}
	fix := fmt.Sprintf("Set another id in the config's [agent] table (id = \"...\", lower-case letters, digits and single "+
		"hyphens), or, if the recorded agent is the one this resource means, adopt it with "+
		"`terraform import a2a_agent.<resource name> %s` instead of creating it.", id)
	if replacing {
		diags.AddAttributeError(path.Root("config"), "Agent id "+id+" is taken",
			fmt.Sprintf("This resource's agent, now %q, gets the new id %q, which the runtime already records for agent %q. "+
				"Two agents cannot share an id, and apply would delete this resource's agent before failing to create its "+
				"replacement. %s To destroy the configuration as it is instead, run terraform destroy -refresh=false.",
				cfg.Agent.Name, id, a.Name, fix))
		return diags
	}
	diags.AddAttributeWarning(path.Root("config"), "Agent id "+id+" is taken",
		fmt.Sprintf("This new agent, %q, gets the id %q, which the runtime already records for agent %q. Two agents cannot "+
			"share an id: apply will refuse to create this one, and leave the recorded agent as it is. %s (The plan is not "+
			"refused: terraform destroy plans the configuration this same way first, and the recorded agent may be one of "+
			"this configuration's, which destroy must remove.)", cfg.Agent.Name, id, a.Name, fix))
	return diags
}

// lostLettersWarning says so when the agent id drops letters of the name
// that have no a-z spelling, as "agent" does for "Agent 日本": the id is
// then not what the name suggests, and other names may give the same one.
func lostLettersWarning(cfg *agentconfig.Config) diag.Diagnostics {
	var diags diag.Diagnostics
	if cfg.Agent.ID != "" {
		return diags
	}
	lost := agentconfig.LostLetters(cfg.Agent.Name)
	if lost == "" {
		return diags
	}
	diags.AddAttributeWarning(path.Root("config"), "Agent id "+cfg.ID()+" leaves out letters of the name",
		fmt.Sprintf("The agent id is spelled from agent.name %q with the letters a-z and digits only, so it is %q, "+
			"without %q. To choose the id yourself, set it in the config's [agent] table: id = \"...\" (lower-case letters, "+
			"digits and single hyphens, starting with a letter).", cfg.Agent.Name, cfg.ID(), lost))
	return diags
}
