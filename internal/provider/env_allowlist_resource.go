package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

type envAllowlistResource struct {
	deps *runtimeDeps
}

var (
	_ resource.ResourceWithConfigure   = (*envAllowlistResource)(nil)
	_ resource.ResourceWithImportState = (*envAllowlistResource)(nil)
)

type envAllowlistModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Variables   types.Set    `tfsdk:"variables"`
	Description types.String `tfsdk:"description"`
	Reference   types.String `tfsdk:"reference"`
}

func (r *envAllowlistResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_env_allowlist"
}

func (r *envAllowlistResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Names the variables of the provider's environment that agents naming this allowlist may " +
			"reference as `${VAR}` in their config. Everything else is denied: an agent that names no allowlist may " +
			"reference only its write-only `env_wo` values. Agents refer to the allowlist by its `reference`.\n\n" +
			"Only variable names are stored, in the provider's state directory; values " +
			"are read from the provider's environment when an agent starts and never reach Terraform state. On the container " +
			"adapter they sit in the container's environment, readable with `docker inspect` on the engine host.\n\n" +
			"Removing a " +
			"variable that agents currently receive makes the plan warn, naming them; deleting an allowlist that agents " +
			"which stay still name (by a literal name, or from another configuration) warns once it is deleted, naming them.\n\n" +
			"The allowlist decides what the provider hands an agent, not what the agent can read by itself: on the local " +
			"adapter every agent runs as the user running Terraform and can read the environment of that user's processes, " +
			"a running `terraform` included.\n\n" +
			"An allowlist is kept in the state dir of the provider that declares it, and an " +
			"agent reads allowlists from " +
			"its own provider's state dir only: declare both with the same provider, or with providers of the same `state_dir`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The allowlist name.",
				PlanModifiers:       []planmodifier.String{sameAsName{}},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name agents refer to in `env_allowlist`: lower-case letters, digits and single hyphens. Changing it replaces the allowlist.",
				Validators:          []validator.String{slugValidator()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"variables": schema.SetAttribute{
				Required:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Environment variable names agents may reference.",
				Validators:          []validator.Set{setvalidator.ValueStringsAre(envNameValidator())},
			},
			"description": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
				MarkdownDescription: "What the allowlist is for.",
			},
			"reference": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "What an agent's `env_allowlist` refers to, known at plan time: the name, the variables " +
					"and a mark of the state dir the allowlist is kept in, `name:VAR_A,VAR_B@<mark>`. An agent that refers to it " +
					"is planned against the variables this allowlist is about to have, so a variable added here can be referenced " +
					"by the agent in the same apply; an agent whose provider keeps another state dir, where it would not find " +
					"the allowlist, is refused at plan.",
			},
		},
	}
}

func (r *envAllowlistResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	deps, diags := depsFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.deps = deps
}

func (r *envAllowlistResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan envAllowlistModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := plan.Name.ValueString()
	_, err := r.deps.allowlists.Get(ctx, name)
	switch {
	case err == nil:
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Env allowlist already exists",
			fmt.Sprintf("An env allowlist named %q is already in the state directory. Import it with "+
				"`terraform import a2a_env_allowlist.<resource name> %s`, or choose another name.", name, name))
		return
	case !agentruntime.IsKind(err, agentruntime.KindNotFound):
		resp.Diagnostics.AddError("Cannot read env allowlist", err.Error())
		return
	}
	resp.Diagnostics.Append(r.put(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	tflog.Info(ctx, "created env allowlist", map[string]any{"name": name})
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *envAllowlistResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state envAllowlistModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.Name.ValueString()
	if name == "" {
		name = state.ID.ValueString()
	}
	allow, err := r.deps.allowlists.Get(ctx, name)
	if agentruntime.IsKind(err, agentruntime.KindNotFound) {
		tflog.Info(ctx, "env allowlist is gone from the state directory; removing it from state", map[string]any{"name": name})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read env allowlist", err.Error())
		return
	}
	// An allowlist of no variables is stored without any; read back as null
	// it would differ from the `variables = []` its config says, and every
	// plan would propose to set it again.
	vars, diags := types.SetValueFrom(ctx, types.StringType, orEmpty(allow.Variables))
	resp.Diagnostics.Append(diags...)
	state = envAllowlistModel{
		ID:          types.StringValue(allow.Name),
		Name:        types.StringValue(allow.Name),
		Variables:   vars,
		Description: types.StringValue(allow.Description),
		Reference:   types.StringValue(allowlistReference(allow.Name, allow.Variables, r.deps.stateDirMark())),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *envAllowlistResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan envAllowlistModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.put(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *envAllowlistResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state envAllowlistModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.Name.ValueString()
	if err := r.deps.allowlists.Delete(ctx, name); err != nil {
		resp.Diagnostics.AddError("Cannot delete env allowlist", err.Error())
		return
	}
	// Terraform deletes an allowlist after the agents that refer to it
	// through its attributes, so the agents still naming it now are those
	// that stay: named by a literal string, or by another configuration
	// sharing the state dir.
	agents, err := r.deps.runtime.List(ctx)
	if err != nil {
		tflog.Warn(ctx, "cannot tell which agents still name the deleted env allowlist", map[string]any{"name": name, "error": err.Error()})
		return
	}
	resp.Diagnostics.Append(stillNamedWarning(name, agents)...)
}

// stillNamedWarning names the agents that name allowlist name, just
// deleted.
func stillNamedWarning(name string, agents []agentruntime.Agent) diag.Diagnostics {
	var diags diag.Diagnostics
	var naming []string
	for _, a := range agents {
		if a.EnvAllowlist == name {
			naming = append(naming, a.ID)
		}
	}
	slices.Sort(naming)
	switch len(naming) {
	case 0:
		return diags
	case 1:
		diags.AddWarning(fmt.Sprintf("Agent %s still names the deleted env allowlist %s", naming[0], name),
			fmt.Sprintf("Env allowlist %q is deleted, but agent %s, which stays, names it in env_allowlist. It keeps the "+
				"variables it received until it is provisioned again, which then fails while it names the missing "+
				"allowlist. Point it at another allowlist, or remove its env_allowlist and its ${VAR} references.",
				name, naming[0]))
	default:
		diags.AddWarning(fmt.Sprintf("Agents %s still name the deleted env allowlist %s", listed(naming), name),
			fmt.Sprintf("Env allowlist %q is deleted, but agents %s, which stay, name it in env_allowlist. They keep the "+
				"variables they received until they are provisioned again, which then fails while they name the missing "+
				"allowlist. Point them at another allowlist, or remove their env_allowlist and their ${VAR} references.",
				name, listed(naming)))
	}
	return diags
}

// listed writes names as a list in prose: "a", "a and b", "a, b and c".
func listed(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func (r *envAllowlistResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("name"), req, resp)
}

// put saves the planned allowlist and fills its id.
func (r *envAllowlistResource) put(ctx context.Context, plan *envAllowlistModel) diag.Diagnostics {
	var vars []string
	diags := plan.Variables.ElementsAs(ctx, &vars, false)
	if diags.HasError() {
		return diags
	}
	sort.Strings(vars)
	allow := agentruntime.EnvAllowlist{Name: plan.Name.ValueString(), Variables: vars, Description: plan.Description.ValueString()}
	if err := r.deps.allowlists.Put(ctx, allow); err != nil {
		diags.AddError("Cannot save env allowlist", err.Error())
		return diags
	}
	plan.ID = types.StringValue(allow.Name)
	plan.Reference = types.StringValue(allowlistReference(allow.Name, vars, r.deps.stateDirMark()))
	return diags
}

// sameAsName plans the id, which is the name, as soon as the name is known,
// so that a new allowlist's id is not "known after apply".
type sameAsName struct{}

func (sameAsName) Description(context.Context) string { return "the id is the name" }

func (m sameAsName) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (sameAsName) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	var name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if !name.IsUnknown() && !name.IsNull() {
		resp.PlanValue = name
	}
}
