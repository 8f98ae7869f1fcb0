package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

var _ resource.ResourceWithModifyPlan = (*envAllowlistResource)(nil)

// ModifyPlan plans the reference agents plan against, and warns about
// agents a change takes variables from: each keeps receiving them until it
// is provisioned again, which its own next plan then proposes, and which
// fails while its config still references them. A delete is not warned
// about here: the agents that name the allowlist through its attributes are
// deleted in the same run, before it, and nothing in this plan tells them
// from agents that stay; Delete names those that stay.
func (r *envAllowlistResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.Append(r.planReference(ctx, req, resp)...)
	if resp.Diagnostics.HasError() || req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || r.deps == nil {
		return // created: no agent can have received anything from it yet
	}
	var prior, plan envAllowlistModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Variables.IsUnknown() || !plan.Name.Equal(prior.Name) {
		return
	}
	name := prior.Name.ValueString()
	removed := removedVariables(ctx, prior.Variables, plan.Variables, &resp.Diagnostics)
	if len(removed) == 0 {
		return
	}
	agents, err := r.deps.runtime.List(ctx)
	if err != nil {
		resp.Diagnostics.AddWarning("Cannot tell which agents use env allowlist "+name,
			agentruntime.Detail(err)+". The plan goes on; each agent's own plan checks its variables.")
		return
	}
	resp.Diagnostics.Append(revokedVariablesWarning(name, removed, agents)...)
}

// removedVariables lists the variables prior has and plan does not.
func removedVariables(ctx context.Context, prior, plan types.Set, diags *diag.Diagnostics) []string {
	var before, after []string
	diags.Append(prior.ElementsAs(ctx, &before, false)...)
	diags.Append(plan.ElementsAs(ctx, &after, false)...)
	var removed []string
	for _, v := range before {
		if !slices.Contains(after, v) {
			removed = append(removed, v)
		}
	}
	slices.Sort(removed)
	return removed
}

// revokedVariablesWarning names each agent that names allowlist name and
// currently receives one of the removed variables.
func revokedVariablesWarning(name string, removed []string, agents []agentruntime.Agent) diag.Diagnostics {
	var diags diag.Diagnostics
	var affected []string
	for _, a := range agents {
		if a.EnvAllowlist != name {
			continue
		}
		var lost []string
		for _, v := range a.InjectedEnv {
			if slices.Contains(removed, v) {
				lost = append(lost, v)
			}
		}
		if len(lost) > 0 {
			affected = append(affected, fmt.Sprintf("%s (%s)", a.ID, strings.Join(lost, ", ")))
		}
	}
	if len(affected) == 0 {
		return diags
	}
	diags.AddAttributeWarning(path.Root("variables"), "Agents still receive variables this change removes",
		fmt.Sprintf("Env allowlist %q stops allowing %s, which these agents received when they were last provisioned "+
			"and receive again at every start: %s. The next plan of each provisions it again; that apply fails while "+
			"its config still references a removed variable. Remove the references from those configs, or keep the variables.",
			name, strings.Join(removed, ", "), strings.Join(affected, "; ")))
	return diags
}

// planReference sets the planned reference when name and variables are
// known, so that agents referring to it are planned against them; when it
// stays the same it is kept, so an unchanged allowlist plans no change.
// It marks the state dir the allowlist is kept in, so that an agent of a
// provider of another state dir is refused at plan.
func (r *envAllowlistResource) planReference(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) diag.Diagnostics {
	var diags diag.Diagnostics
	if req.Plan.Raw.IsNull() || r.deps == nil {
		return diags // destroyed, or no state dir to mark yet: known at apply
	}
	var plan envAllowlistModel
	diags.Append(req.Plan.Get(ctx, &plan)...)
	if diags.HasError() || plan.Name.IsUnknown() || plan.Variables.IsUnknown() {
		return diags
	}
	var vars []string
	for _, v := range plan.Variables.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() || s.IsNull() {
			return diags // known at apply
		}
		vars = append(vars, s.ValueString())
	}
	diags.Append(resp.Plan.SetAttribute(ctx, path.Root("reference"), allowlistReference(plan.Name.ValueString(), vars, r.deps.stateDirMark()))...)
	return diags
}
