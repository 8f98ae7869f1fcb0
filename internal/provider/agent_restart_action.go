package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// agentRestartAction is a2a_agent_restart: a running agent restarted in
// place, so that it takes up the values its allowlisted variables have
// now, such as a rotated secret, without being replaced.
type agentRestartAction struct {
	deps *runtimeDeps
}

var _ action.ActionWithConfigure = (*agentRestartAction)(nil)

func newAgentRestartAction() action.Action { return &agentRestartAction{} }

type agentRestartModel struct {
	ID      types.String `tfsdk:"id"`
	Timeout types.String `tfsdk:"timeout"`
}

func (a *agentRestartAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_agent_restart"
}

func (a *agentRestartAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Restarts a running agent in place, so that it runs with the values its allowlisted variables " +
			"have in the environment Terraform runs in now, such as a rotated secret, and the `env_wo` values it was given " +
			"last, without replacing it: `terraform apply -invoke=action.a2a_agent_restart.<name>`. Terraform 1.14 or newer.\n\n" +
			"On the `kubernetes` adapter the restart rolls: each pod is replaced by a fresh one, and none is taken away before " +
			"its replacement's card answers, so the agent answers throughout. The `local` and `container` adapters run one " +
			"process or container per agent on one port: they stop it and start it again, and the agent does not answer in " +
			"between. The action returns once the agent is healthy again. An agent that is not running is not started, and " +
			"the action fails: `terraform apply` starts it.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The agent's id, such as `a2a_agent.<name>.id`, of an agent the provider block's runtime holds.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: "How long the restart may take until the agent is healthy again, as a duration such as " +
					"`\"5m\"`. Defaults to `\"" + defaultUpdateTimeout.String() + "\"`, as an update of `a2a_agent`.",
				Optional:   true,
				Validators: []validator.String{durationValidator()},
			},
		},
	}
}

func (a *agentRestartAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	deps, diags := depsFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	a.deps = deps
}

func (a *agentRestartAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m agentRestartModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if a.deps == nil {
		resp.Diagnostics.AddError("Cannot restart the agent: the provider is not configured",
			"The provider block's values were not known when the action ran; apply the resources they depend on first, then invoke the action again.")
		return
	}
	ctx, cancel := context.WithTimeout(ctx, durationOr(m.Timeout, defaultUpdateTimeout))
	defer cancel()
	id := m.ID.ValueString()
	ctx = tflog.SetField(ctx, "agent_id", id)
	rt := a.deps.runtime
	how := "stopping it and starting it again"
	if _, rolls := rt.(agentruntime.Restarter); rolls {
		how = "replacing its instances one at a time"
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: "Restarting agent " + id + ", " + how})
	restarted, err := agentruntime.Restart(ctx, rt, id)
	if err != nil {
		resp.Diagnostics.AddError("Cannot restart agent "+id, err.Error())
		return
	}
	tflog.Info(ctx, "restarted agent", map[string]any{"instance": restarted.Instance})
	resp.SendProgress(action.InvokeProgressEvent{Message: "Agent " + id + " is healthy again, at " + restarted.Endpoint})
}
