package provider

import (
	"context"
	"fmt"
	"sync"

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

// plannedIDs is, by agent id, the agent.name of the new agent planned with
// that id. Terraform plans the resources of a configuration concurrently,
// and may plan one resource more than once in a process, so the same name
// claiming its id again is no conflict.
type plannedIDs struct {
	mu    sync.Mutex
	names map[string]string
}

// claim records that a new agent named name is planned with id. It returns
// the name of another agent planned with that id before, which keeps it,
// or "" when id is free for name.
func (p *plannedIDs) claim(id, name string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if other, ok := p.names[id]; ok && other != name {
		return other
	}
	if p.names == nil {
		p.names = map[string]string{}
	}
	p.names[id] = name
	return ""
}

// checkIDUnique refuses, at plan, a new agent (or one replaced onto a new
// id) whose id another new agent of the same configuration has under
// another name, such as "Twin" and "twin": both see the id free in the
// runtime, so only apply would tell, creating one and refusing the other.
// The configuration alone makes this conflict, so it is refused before
// anything is created.
//
// Two resources declaring the very same name cannot be told apart from
// one resource planned twice, so they are left to Create, which lets one
// of them create the agent and refuses the other.
func checkIDUnique(ids *plannedIDs, prior, plan *agentModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if ids == nil || plan.ID.IsUnknown() || plan.ID.IsNull() || (prior != nil && prior.ID.Equal(plan.ID)) {
		return diags
	}
	id, name := plan.ID.ValueString(), plan.Name.ValueString()
	other := ids.claim(id, name)
	if other == "" {
		return diags
	}
	diags.AddAttributeError(path.Root("config"), fmt.Sprintf("Agents %q and %q both get id %s", other, name, id),
		fmt.Sprintf("This agent, %q, and another a2a_agent of this configuration, %q, are both to be created with the id %q: "+
			"an agent's id is spelled from its agent.name with the letters a-z and digits only, and two agents cannot share "+
			"one. Nothing has been created. Rename one of the two, or give one an id of its own in its config's [agent] "+
			"table (id = \"...\", lower-case letters, digits and single hyphens). Until then, terraform destroy "+
			"-refresh=false destroys the configuration's other agents.", name, other, id))
	return diags
}
