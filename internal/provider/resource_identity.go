package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource identity, which Terraform 1.12 and later keep beside state and
// import blocks may name an object by: a2a_agent and a2a_env_allowlist
// are known by their id alone, the agent id and the allowlist name, as
// terraform import knows them. Which runtime or state dir holds the
// object is the provider block's to say, as for an import by id.
//
// An identity follows from the state it belongs to, so the wrappers below
// set it once, after each operation that leaves a state, rather than on
// every path of those operations. CLIs that know no identity ignore it.

// identityModel is the identity of both resources.
type identityModel struct {
	ID types.String `tfsdk:"id"`
}

func idIdentitySchema(description string) identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"id": identityschema.StringAttribute{RequiredForImport: true, Description: description},
	}}
}

// identify sets identity to the id state holds at attr or, for a state a
// read has just removed, the id prior held: the framework wants an
// identity back from every read that succeeds, that of a gone object too.
func identify(ctx context.Context, attr string, state, prior *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if identity == nil {
		return
	}
	from := state
	if state.Raw.IsNull() && prior != nil {
		from = prior
	}
	var id types.String
	diags.Append(from.GetAttribute(ctx, path.Root(attr), &id)...)
	if id.IsNull() || id.IsUnknown() {
		return
	}
	diags.Append(identity.Set(ctx, identityModel{ID: id})...)
}

// importID is the id an import names: the import block's id (or terraform
// import's argument), else its identity's.
func importID(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) string {
	if req.ID != "" || req.Identity == nil {
		return req.ID
	}
	var m identityModel
	diags.Append(req.Identity.Get(ctx, &m)...)
	return m.ID.ValueString()
}

// identifiable is what a resource with an identity implements besides.
type identifiable interface {
	resource.ResourceWithConfigure
	resource.ResourceWithImportState
	resource.ResourceWithModifyPlan
}

// identified is a resource with its identity, the id its state holds at
// attr.
type identified struct {
	identifiable
	attr        string
	description string
}

var _ resource.ResourceWithIdentity = identified{}

func (r identified) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = idIdentitySchema(r.description)
}

func (r identified) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.identifiable.Create(ctx, req, resp)
	identify(ctx, r.attr, &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

func (r identified) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.identifiable.Read(ctx, req, resp)
	identify(ctx, r.attr, &resp.State, &req.State, resp.Identity, &resp.Diagnostics)
}

func (r identified) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.identifiable.Update(ctx, req, resp)
	identify(ctx, r.attr, &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

func (r identified) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID = importID(ctx, req, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	r.identifiable.ImportState(ctx, req, resp)
	identify(ctx, r.attr, &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

// identifiedAgent is a2a_agent with its identity, and the config
// validation the allowlist has none of.
type identifiedAgent struct {
	identified
	agent *agentResource
}

var _ resource.ResourceWithValidateConfig = identifiedAgent{}

func newIdentifiedAgent() resource.Resource {
	agent := &agentResource{}
	return identifiedAgent{agent: agent, identified: identified{identifiable: agent, attr: "id",
		description: "The agent id, such as `echo-agent` for \"Echo Agent\" " +
			"(`provider::a2a::agent_id` spells it from a name), of an agent the provider block's runtime holds."}}
}

func (r identifiedAgent) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	r.agent.ValidateConfig(ctx, req, resp)
}

// newIdentifiedEnvAllowlist is a2a_env_allowlist with its identity, which
// is its name: an imported allowlist has no id until it is read.
func newIdentifiedEnvAllowlist() resource.Resource {
	return identified{identifiable: &envAllowlistResource{}, attr: "name",
		description: "The allowlist name, of an allowlist kept in the provider block's state dir."}
}
