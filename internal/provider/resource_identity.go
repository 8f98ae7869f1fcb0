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

// identifiedAgent is a2a_agent with its identity.
type identifiedAgent struct{ *agentResource }

var (
	_ resource.ResourceWithIdentity       = identifiedAgent{}
	_ resource.ResourceWithConfigure      = identifiedAgent{}
	_ resource.ResourceWithImportState    = identifiedAgent{}
	_ resource.ResourceWithModifyPlan     = identifiedAgent{}
	_ resource.ResourceWithValidateConfig = identifiedAgent{}
)

func newIdentifiedAgent() resource.Resource { return identifiedAgent{&agentResource{}} }

func (r identifiedAgent) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = idIdentitySchema("The agent id, such as `echo-agent` for \"Echo Agent\" " +
		"(`provider::a2a::agent_id` spells it from a name), of an agent the provider block's runtime holds.")
}

func (r identifiedAgent) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.agentResource.Create(ctx, req, resp)
	identify(ctx, "id", &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

func (r identifiedAgent) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.agentResource.Read(ctx, req, resp)
	identify(ctx, "id", &resp.State, &req.State, resp.Identity, &resp.Diagnostics)
}

func (r identifiedAgent) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.agentResource.Update(ctx, req, resp)
	identify(ctx, "id", &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

func (r identifiedAgent) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID = importID(ctx, req, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	r.agentResource.ImportState(ctx, req, resp)
	identify(ctx, "id", &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

// identifiedEnvAllowlist is a2a_env_allowlist with its identity, which is
// its name: an imported allowlist has no id until it is read.
type identifiedEnvAllowlist struct{ *envAllowlistResource }

var (
	_ resource.ResourceWithIdentity    = identifiedEnvAllowlist{}
	_ resource.ResourceWithConfigure   = identifiedEnvAllowlist{}
	_ resource.ResourceWithImportState = identifiedEnvAllowlist{}
)

func newIdentifiedEnvAllowlist() resource.Resource {
	return identifiedEnvAllowlist{&envAllowlistResource{}}
}

func (r identifiedEnvAllowlist) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = idIdentitySchema("The allowlist name, of an allowlist kept in the provider block's state dir.")
}

func (r identifiedEnvAllowlist) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.envAllowlistResource.Create(ctx, req, resp)
	identify(ctx, "name", &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

func (r identifiedEnvAllowlist) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.envAllowlistResource.Read(ctx, req, resp)
	identify(ctx, "name", &resp.State, &req.State, resp.Identity, &resp.Diagnostics)
}

func (r identifiedEnvAllowlist) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.envAllowlistResource.Update(ctx, req, resp)
	identify(ctx, "name", &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

func (r identifiedEnvAllowlist) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID = importID(ctx, req, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	r.envAllowlistResource.ImportState(ctx, req, resp)
	identify(ctx, "name", &resp.State, nil, resp.Identity, &resp.Diagnostics)
}
