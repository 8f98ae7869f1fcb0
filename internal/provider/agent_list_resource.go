package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// agentListResource lists, for terraform query, the agents the provider
// block's runtime holds, as a2a_agent would import them.
type agentListResource struct {
	// agents is the resource the listed agents are instances of.
	agents agentResource
}

var (
	_ list.ListResourceWithConfigure = (*agentListResource)(nil)
)

func newAgentListResource() list.ListResource { return &agentListResource{} }

// agentListModel is the config of a list block of a2a_agent.
type agentListModel struct {
	IDPrefix   types.String `tfsdk:"id_prefix"`
	NamePrefix types.String `tfsdk:"name_prefix"`
	Health     types.List   `tfsdk:"health"`
}

var healths = []string{
	string(agentruntime.HealthProvisioned), string(agentruntime.HealthHealthy),
	string(agentruntime.HealthUnhealthy), string(agentruntime.HealthStopped), string(agentruntime.HealthDegraded),
}

func (r *agentListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_agent"
}

func (r *agentListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the agents the provider block's runtime holds (those of its state directory, those labelled " +
			"on its engine, or those of its namespace and scope on the cluster), each by its identity, the agent id, and by its " +
			"name. With `include_resource`, or with `terraform query -generate-config-out=FILE`, each comes with what `a2a_agent` " +
			"reads back on import, its config included, so the generated configuration imports every agent with nothing to change.\n\n" +
			"Write-only values never come back: the generated `env_wo` is null, the agent keeps the values the runtime holds, and the " +
			"plan warns which to set in `env_wo` before a change that provisions the agent again.\n\n" +
			"An agent the runtime holds but cannot adopt (one whose record or config file in the state directory is damaged, or " +
			"whose config the runtime does not record) is not listed: a warning names it and says why. Filters combine: an agent is listed when it passes every one set.",
		Attributes: map[string]schema.Attribute{
			"id_prefix": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Lists only agents whose id starts with this, such as `billing-`.",
			},
			"name_prefix": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Lists only agents whose `agent.name` starts with this, letter case included.",
			},
			"health": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Lists only agents whose health, observed as the list is made, is one of these: `provisioned`, " +
					"`healthy`, `unhealthy`, `stopped` or `degraded` (see `a2a_agent`'s `health`).",
				Validators: []validator.List{listvalidator.ValueStringsAre(stringvalidator.OneOf(healths...))},
			},
		},
	}
}

func (r *agentListResource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.agents.Configure(ctx, req, resp)
}

func (r *agentListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var config agentListModel
	diags := req.Config.Get(ctx, &config)
	var wanted []string
	if !config.Health.IsNull() {
		diags.Append(config.Health.ElementsAs(ctx, &wanted, false)...)
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	survey, err := agentruntime.SurveyOf(ctx, r.agents.deps.runtime)
	if err != nil {
		diags.AddError("Cannot list agents", err.Error())
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	admits := func(a agentruntime.Agent) bool {
		return strings.HasPrefix(a.ID, config.IDPrefix.ValueString()) && strings.HasPrefix(a.Name, config.NamePrefix.ValueString()) &&
			(wanted == nil || slices.Contains(wanted, string(a.Health)))
	}
	stream.Results = func(push func(list.ListResult) bool) {
		// Warnings first: Terraform stops reading at the list's limit.
		warned := map[string]bool{}
		for _, e := range survey.Unreadable {
			if strings.HasPrefix(e.ID, config.IDPrefix.ValueString()) {
				warned[e.ID] = true
				if !push(warning("Agent "+e.ID+" cannot be read and is not listed", e.Detail())) {
					return
				}
			}
		}
		for _, a := range survey.Agents {
			switch {
			case !admits(a):
				continue
			case len(a.Config) == 0:
				if !warned[a.ID] && !push(warning("Agent "+a.ID+" cannot be imported and is not listed",
					"The runtime does not record the config of this agent, so Terraform cannot adopt it.")) {
					return
				}
				continue
			}
			if !push(r.result(ctx, req, a)) {
				return
			}
		}
	}
}

// result is the listed agent: its identity and name, and, when asked for,
// the state an import of it reads.
func (r *agentListResource) result(ctx context.Context, req list.ListRequest, a agentruntime.Agent) list.ListResult {
	res := req.NewListResult(ctx)
	res.DisplayName = fmt.Sprintf("%s (%s)", a.Name, a.ID)
	res.Diagnostics.Append(res.Identity.Set(ctx, identityModel{ID: types.StringValue(a.ID)})...)
	if req.IncludeResource {
		res.Diagnostics.Append(r.imported(ctx, a, res.Resource)...)
	}
	return res
}

// imported sets state to what an import of the agent reads: the import's
// id, then what Read makes of it.
func (r *agentListResource) imported(ctx context.Context, a agentruntime.Agent, state *tfsdk.Resource) diag.Diagnostics {
	diags := state.SetAttribute(ctx, path.Root("id"), a.ID)
	var m agentModel
	diags.Append(state.Get(ctx, &m)...)
	if diags.HasError() {
		return diags
	}
	m.setFromRuntime(a)
	if a.EnvAllowlist != "" {
		m.EnvAllowlist = types.StringValue(r.agents.referenceOf(ctx, a.EnvAllowlist))
	}
	return append(diags, state.Set(ctx, m)...)
}

// warning is a result that only warns.
func warning(summary, detail string) list.ListResult {
	var diags diag.Diagnostics
	diags.AddWarning(summary, detail)
	return list.ListResult{Diagnostics: diags}
}
