package provider

import (
	"context"
	"maps"
	"reflect"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// Default operation timeouts. Starting includes waiting for the card to
// answer; deleting includes the stop grace period.
const (
	defaultCreateTimeout = 2 * time.Minute
	defaultUpdateTimeout = 2 * time.Minute
	defaultDeleteTimeout = time.Minute
)

// failedStartStopTimeout bounds stopping an agent whose start failed; it
// runs after the operation's own timeout may have passed, and covers the
// default stop grace period.
const failedStartStopTimeout = 30 * time.Second

// How much of an agent's log a failed start reports: lines, the bytes of
// one line, and the bytes of all; and how many of its events, within the
// same bounds.
const (
	logTailLines   = 20
	eventTailCount = 10
	logLineBytes   = 256
	logTailBytes   = 4 << 10
)

type agentResource struct {
	deps *runtimeDeps
}

var (
	_ resource.ResourceWithConfigure      = (*agentResource)(nil)
	_ resource.ResourceWithImportState    = (*agentResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*agentResource)(nil)
	_ resource.ResourceWithValidateConfig = (*agentResource)(nil)
)

type agentModel struct {
	ID             types.String   `tfsdk:"id"`
	Name           types.String   `tfsdk:"name"`
	Config         types.String   `tfsdk:"config"`
	EnvAllowlist   types.String   `tfsdk:"env_allowlist"`
	EnvWO          types.Map      `tfsdk:"env_wo"` // always null here: Terraform passes it in config only
	EnvWOVersion   types.Int64    `tfsdk:"env_wo_version"`
	Running        types.Bool     `tfsdk:"running"`
	Replicas       types.Int64    `tfsdk:"replicas"`
	Kubernetes     types.Object   `tfsdk:"kubernetes"`
	WaitForHealthy types.Bool     `tfsdk:"wait_for_healthy"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
	Endpoint       types.String   `tfsdk:"endpoint"`
	CardURL        types.String   `tfsdk:"card_url"`
	Port           types.Int64    `tfsdk:"port"`
	Health         types.String   `tfsdk:"health"`
	ConfigSHA256   types.String   `tfsdk:"config_sha256"`
	InjectedEnv    types.List     `tfsdk:"injected_env"`
	Instance       types.String   `tfsdk:"instance"`
	RestartCount   types.Int64    `tfsdk:"restart_count"`
	Settings       types.Map      `tfsdk:"runtime_settings"`
}

func (r *agentResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_agent"
}

func (r *agentResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An A2A agent run by the adapter the provider block selects. Apply provisions it, starts it and " +
			"waits until its Agent Card answers; plan shows drift (a crashed or deleted agent); destroy stops it and " +
			"removes every trace. Import takes the agent id and adopts an agent the provider's runtime recorded " +
			"(in its state directory, or labelled on the engine); an agent started by hand with `a2a-agent-host` cannot be " +
			"imported. The agent config's tables and keys are described in the " +
			"[agent config guide](../guides/agent-config.md).\n\n" +
			"Timeouts default to 2 minutes for create and update (provisioning, starting, and waiting until the card " +
			"answers when `wait_for_healthy` is true) and 1 minute for delete. Stopping an agent waits up to the provider's " +
			"`stop_grace_period` (10 seconds by default) before it is killed, within the update or delete timeout, so keep " +
			"those timeouts well above it.\n\n" +
			"Secrets reach an agent three ways, compared in the [secrets guide](../guides/secrets.md): allowlisted variables " +
			"of the provider's environment (`env_allowlist`), write-only values (`env_wo`, never in state) and literals " +
			"(warned at plan, stored in state). Every `${VAR}` the config references must have a value at plan: from " +
			"`env_wo`, from an allowlisted variable set in the provider's environment, or from a `${VAR:-default}`.\n\n" +
			"A changed value of an allowlisted variable, such as a rotated secret, is drift: the refresh compares the values the " +
			"running agent started with to those of terraform's environment, and the plan restarts the agent with the new ones " +
			"(rolling on the kubernetes adapter), naming the variables. The `a2a_agent_restart` action (Terraform 1.14) does the " +
			"same without a plan. On the container adapter those values sit in the container's environment, readable with " +
			"`docker inspect` on the engine host. For `env_wo` values, which Terraform never sees, bump `env_wo_version` instead.",
		Attributes: map[string]schema.Attribute{
			"config": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The agent config, TOML (sections `agent`, `server`, `handler`, `skills`, `auth`, `card`, `tasks`, `runtime`, `telemetry`). " +
					"`agent.name` is required. The agent id is `agent.id` when set, else spelled from the name (see `id`), so " +
					"changing the id replaces the agent; other changes " +
					"restart it in place, or, on `kubernetes`, roll a running agent over to new pods without downtime (see " +
					"[updates and rollback](../guides/kubernetes.md#updates-and-rollback)).\n\n  " +
					"`${VAR}` and `${VAR:-default}` are expanded by the agent host from the `env_wo` values and the " +
					"variables `env_allowlist` allows, never by Terraform, so their values stay out of state. Write secrets " +
					"(`auth.bearer_token`, `handler.llm.api_key`, `card.signing_key`, credential headers of `telemetry.otlp_headers`) as `${VAR}` references: the plan warns " +
					"about a literal one, which would be stored in state and shown in plans.",
			},
			"env_allowlist": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The `a2a_env_allowlist` whose variables the config may reference: its `reference` " +
					"(`a2a_env_allowlist.<name>.reference`), or its name. Without it the config may reference only `env_wo` " +
					"values. Naming another allowlist restarts the agent.\n\n  " +
					"The reference carries the variables the allowlist " +
					"will have, so that adding a variable to an allowlist and referencing it in the same change takes one " +
					"apply; with a bare name the plan checks the allowlist as the provider has stored it, so the same change " +
					"takes two (apply the allowlist first).\n\n  " +
					"Taking away a variable an unchanged config still references " +
					"makes the agent's next plan warn and provision it again; that apply, which runs after the allowlist's own " +
					"update when `env_allowlist` refers to the `a2a_env_allowlist` resource, checks the allowlist again and fails " +
					"naming the variable if it is still not allowed, or succeeds if the same apply gave it back.\n\n  " +
					"The allowlist " +
					"must be kept in the state dir of this agent's provider: declare it with the same provider block, or one of " +
					"the same `state_dir`; a reference to an allowlist kept elsewhere is refused at plan. Import sets the " +
					"allowlist's reference here.",
				Validators: []validator.String{allowlistRefValidator()},
			},
			"running": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Whether the agent should be running. A crashed agent reads back `false`, so the plan starts it again. Default: `true`.",
			},
			"replicas": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "How many instances of the agent run at once behind its one address, on an adapter that runs " +
					"replicas: the `kubernetes` adapter runs that many pods. The `local` and `container` adapters run one, and refuse more " +
					"at plan time. Changing it scales a running agent in place: its instances keep running, and apply returns once " +
					"the new ones are ready. Default: the provider block's `kubernetes.replicas` on Kubernetes, else `1`. With " +
					"`kubernetes.autoscaling` it may not be set: it then reads how many pods the autoscaler runs, and plan never changes it.",
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"kubernetes": workloadSchema(),
			"wait_for_healthy": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Wait, within the create or update timeout, until the agent's card answers after a start. " +
					"A new agent that does not start (it exits, or its card does not answer in time) fails the apply with its log tail " +
					"(and, on `kubernetes`, the last events of its pods) and is removed again, leaving nothing running or recorded; an existing agent whose restart fails is kept, stopped, " +
					"and the next apply tries again.\n\n  " +
					"On `kubernetes` a running agent that changes is rolled over to new pods, which " +
					"is always waited for: when the new pods do not become healthy the apply fails, the previous pods serve on with the " +
					"previous config, which the state keeps, and the next apply tries again. Default: `true`.",
			},
			"id": schema.StringAttribute{
				Computed: true, PlanModifiers: keep,
				MarkdownDescription: "Agent id: `agent.id` from the config when set, else spelled from `agent.name` with the " +
					"letters `a`-`z` (accents dropped), digits and single hyphens, such as `echo-agent` for \"Echo Agent\" and " +
					"`cafe-agent` for \"Café Agent\". A name with no such letters, or whose id would be longer than 63 " +
					"characters, is refused at plan: set `agent.id`. A new agent whose id the runtime already records for " +
					"an agent of another name is refused at plan. See the [agent config guide](../guides/agent-config.md#the-agent-id).",
			},
			"name": schema.StringAttribute{
				Computed: true, PlanModifiers: keep,
				MarkdownDescription: "`agent.name` from the config.",
			},
			"endpoint": schema.StringAttribute{
				Computed: true, PlanModifiers: keep,
				MarkdownDescription: "Base URL the agent advertises. The built-in host serves A2A JSON-RPC here, HTTP+JSON below it and gRPC at its `host:port`, all on the agent's one port (`[server] bindings` narrows them); a brought agent serves what its card says.",
			},
			"card_url": schema.StringAttribute{
				Computed: true, PlanModifiers: keep,
				MarkdownDescription: "URL of the agent's published Agent Card.",
			},
			"port": schema.Int64Attribute{
				Computed: true, PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
				MarkdownDescription: "Port clients reach the agent on: `server.http_port` when set, else one the runtime allocates " +
					"when the agent is created and keeps across updates, restarts, crashes and recreated containers. An agent Terraform " +
					"replaces (`terraform apply -replace`, tainted, moved to another runtime) gets its old port again when the port is " +
					"free at that moment.\n\n  " +
					"The port changes when the agent gets another id (a new `agent.name`), when a replacement " +
					"finds its old port taken (or is created before the old agent is destroyed), when the agent is destroyed and created " +
					"again by a later run, and in the few other cases the " +
					"[agent config guide](../guides/agent-config.md#when-the-port-changes) lists. Set `server.http_port` for a port that never changes.",
			},
			"health": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "What the runtime observed at the last refresh:\n" +
					"  - `provisioned` (never started)\n" +
					"  - `healthy` (its card answers)\n" +
					"  - `unhealthy` (running, card not answering)\n" +
					"  - `stopped`\n" +
					"  - on `kubernetes`, `degraded` (its card answers, but some of its pods " +
					"are lost: they ran on a node that stopped answering)\n\n  " +
					"Like a stopped agent that should run, an unhealthy one is drift: " +
					"the next apply restarts it (on `kubernetes`, rolls it over to new pods). A kubernetes agent whose rollout was cut " +
					"short (the apply that began it was killed) reads `unhealthy` too.\n\n  " +
					"A degraded agent is mended by the cluster, which " +
					"reschedules the lost pods: the refresh warns which pods are lost and why, and the next apply touches nothing but waits " +
					"until the agent is healthy again.",
			},
			"config_sha256": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Hex SHA-256 of `config` as provisioned.",
			},
			"injected_env": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Names (never values) of the variables passed to the agent: those the config references and the allowlist allows. " +
					"When one of them has another value in terraform's environment than the running agent started with, the plan warns, naming it, " +
					"and shows this attribute as known after apply; apply provisions the agent again and restarts it with the new value.",
			},
			"instance": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Process id (local adapter) or container id (container adapter) of the running agent; null when it is not running.",
			},
			"restart_count": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "How many times the agent was restarted after it exited on its own: on `local` by its supervisor " +
					"since Terraform last started it, on `container` and `kubernetes` as the engine and the cluster count them. " +
					"A refresh reads the count of now, which changes no plan.",
			},
			"runtime_settings": schema.MapAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The provider block's settings that shape the agent's container or Kubernetes objects, by attribute " +
					"(such as `kubernetes.resources` or `container.network`), as read off those objects. When one changes in the provider " +
					"block, or on the objects outside Terraform, the plan shows an update of every agent it reaches, naming the setting, and apply " +
					"rolls it out as it does a config change: on `kubernetes` a rolling update, on `container` a restart in place.\n\n  " +
					"Null on the " +
					"`local` adapter, whose agents no such setting reaches, and for a container made by a release before this attribute " +
					"until the agent is next provisioned.",
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
	maps.Copy(resp.Schema.Attributes, writeOnlyAttributes())
}

func (r *agentResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	deps, diags := depsFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.deps = deps
}

// ImportState adopts an agent the runtime recorded, by its id. An agent the
// runtime never recorded (one started by hand with a2a-agent-host, for
// one) cannot be adopted: nothing tells where it runs or what it runs.
func (r *agentResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if r.deps != nil {
		if err := importableAgent(ctx, r.deps.runtime, req.ID); err != nil {
			resp.Diagnostics.AddError("Cannot import agent "+req.ID, err.Error())
			return
		}
	}
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// setFromRuntime copies what the runtime reports into the model. The config and
// allowlist come back only from adapters that record them; otherwise the
// model keeps what it had.
func (m *agentModel) setFromRuntime(a agentruntime.Agent) {
	m.ID = types.StringValue(a.ID)
	m.Name = types.StringValue(a.Name)
	m.Endpoint = types.StringValue(a.Endpoint)
	m.CardURL = types.StringValue(a.CardURL)
	m.Port = types.Int64Value(int64(a.Port))
	m.ConfigSHA256 = types.StringValue(a.ConfigSHA256)
	m.InjectedEnv = stringList(a.InjectedEnv)
	m.Instance = optionalString(a.Instance)
	m.RestartCount = types.Int64Value(int64(a.Restarts))
	m.Running = types.BoolValue(a.Running)
	m.Health = types.StringValue(string(a.Health))
	if len(a.Config) > 0 {
		m.Config = types.StringValue(string(a.Config))
		// The runtime records the name; a reference naming it stays.
		if allowlistName(m.EnvAllowlist) != a.EnvAllowlist {
			m.EnvAllowlist = optionalString(a.EnvAllowlist)
		}
	}
	m.Settings = stringMap(a.Settings)
	if v, err := strconv.ParseInt(a.WriteOnlyVersion, 10, 64); err == nil && m.EnvWOVersion.IsNull() {
		// Imported: the version the agent was provisioned with, so that a
		// configuration setting it plans no change.
		m.EnvWOVersion = types.Int64Value(v)
	}
	if m.Kubernetes.IsNull() {
		// Imported: the workload the objects record. Otherwise the
		// configured one stays; its effect on the pods is read back in
		// runtime_settings.
		m.Kubernetes = workloadObject(a.Workload)
	}
	// Adapters that run one instance report none.
	m.Replicas = types.Int64Value(int64(max(a.Replicas, 1)))
	if m.WaitForHealthy.IsNull() || m.WaitForHealthy.IsUnknown() {
		// An imported agent has no value yet; the default keeps the first
		// plan after import empty.
		m.WaitForHealthy = types.BoolValue(true)
	}
}

// sameAs reports whether m holds the very values o holds, so that a
// response keeps the state or plan it was given rather than convert m back:
// converting a model costs more than all else a refresh or plan of an
// unchanged agent does.
func (m *agentModel) sameAs(o *agentModel) bool {
	a, b := reflect.ValueOf(m).Elem(), reflect.ValueOf(o).Elem()
	for i := range a.NumField() {
		if !a.Field(i).Interface().(attr.Value).Equal(b.Field(i).Interface().(attr.Value)) {
			return false
		}
	}
	return true
}

// forgetUnknowns sets the computed values nobody could observe to null,
// since state may hold nothing unknown.
func (m *agentModel) forgetUnknowns() {
	for _, s := range []*types.String{&m.ID, &m.Name, &m.Endpoint, &m.CardURL, &m.Health, &m.ConfigSHA256, &m.Instance} {
		if s.IsUnknown() {
			*s = types.StringNull()
		}
	}
	if m.Port.IsUnknown() {
		m.Port = types.Int64Null()
	}
	if m.RestartCount.IsUnknown() {
		m.RestartCount = types.Int64Null()
	}
	if m.InjectedEnv.IsUnknown() {
		m.InjectedEnv = types.ListNull(types.StringType)
	}
	if m.Settings.IsUnknown() {
		m.Settings = types.MapNull(types.StringType)
	}
}

// stringMap is a known map, or null for a nil one.
func stringMap(items map[string]string) types.Map {
	if items == nil {
		return types.MapNull(types.StringType)
	}
	values := make(map[string]attr.Value, len(items))
	for k, v := range items {
		values[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, values)
}

// stringList is a known list, empty rather than null, so plans compare equal.
func stringList(items []string) types.List {
	values := make([]attr.Value, len(items))
	for i, s := range items {
		values[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, values)
}
