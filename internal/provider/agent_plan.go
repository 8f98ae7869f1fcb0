package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// ValidateConfig makes the checks that need neither the runtime nor the
// store, so that `terraform validate` already reports them.
func (r *agentResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config, allowlist types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("config"), &config)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("env_allowlist"), &allowlist)...)
	if resp.Diagnostics.HasError() || config.IsNull() || config.IsUnknown() {
		return
	}
	raw := []byte(config.ValueString())
	if allowlist.IsNull() {
		// No allowlist denies every variable but the write-only ones; no
		// store is needed to know that. Without env_wo at all, the plan
		// tells: an adopted agent keeps the write-only values the runtime
		// holds for it, which only the plan can read.
		values, known, diags := writeOnlyValues(ctx, req.Config)
		resp.Diagnostics.Append(diags...)
		if !diags.HasError() && (values != nil || !known) {
			if _, err := agentruntime.CheckEnv(nil, plannedWriteOnly(values, known, raw).Names(), raw); err != nil {
				resp.Diagnostics.Append(configDiags(err, nil)...)
			}
		}
	}
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		resp.Diagnostics.Append(configDiags(err, nil)...)
		return
	}
	resp.Diagnostics.Append(configWarnings(cfg)...)
}

// ModifyPlan checks the config against the runtime and the allowlist store
// and fills in every computed value the plan can know, so that an unchanged
// agent plans no change and a changed one shows only what will change.
func (r *agentResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var plan agentModel
	resp.Diagnostics.Append(readModel(ctx, req.Plan.Raw, req.Plan.Schema, &plan)...)
	proposed := plan
	var prior *agentModel
	if !req.State.Raw.IsNull() {
		prior = &agentModel{}
		resp.Diagnostics.Append(readModel(ctx, req.State.Raw, req.State.Schema, prior)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	env, diags := r.plannedAllowlist(ctx, plan.EnvAllowlist)
	resp.Diagnostics.Append(diags...)
	values, known, diags := writeOnlyValues(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	var rt agentruntime.Runtime
	if r.deps != nil {
		rt = r.deps.runtime
	}
	var replicas types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("replicas"), &replicas)...)
	planReplicas(rt, replicas, &plan)
	if autoscaled(ctx, &plan) {
		resp.Diagnostics.Append(planAutoscaledReplicas(ctx, replicas, prior, &plan)...)
	}
	resp.Diagnostics.Append(checkReplicas(rt, &plan)...)
	resp.Diagnostics.Append(checkWorkload(ctx, rt, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	seen, diags := storedRuntimeEnv(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	replace, diags := planAgent(ctx, rt, prior, &plan, env, writeOnly{values: values, known: known, seen: seen})
	resp.Diagnostics.Append(diags...)
	if r.deps != nil && !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(checkIDUnique(&r.deps.plannedIDs, prior, &plan)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Config.IsUnknown() {
		resp.Diagnostics.Append(unknownConfigWarning()...)
	}
	if replace {
		resp.RequiresReplace = path.Paths{path.Root("config")}
	}
	if prior != nil {
		resp.Diagnostics.Append(r.planMove(ctx, req.Private, &plan, resp)...)
	}
	if !plan.sameAs(&proposed) {
		resp.Diagnostics.Append(setModel(ctx, &resp.Plan, resp.Plan.Schema, &plan)...)
	}
}

// plannedAllowlist is the allowlist an agent will be provisioned with, when
// the plan can know it.
type plannedAllowlist struct {
	known     bool
	allowlist *agentruntime.EnvAllowlist // nil denies every variable
}

// plannedAllowlist is the allowlist a reference carries, or else the named
// one as stored. One that is not stored yet may be created by this same
// plan, so it is left to apply, unless its reference says it is kept in
// another state dir than this provider's.
func (r *agentResource) plannedAllowlist(ctx context.Context, value types.String) (plannedAllowlist, diag.Diagnostics) {
	var diags diag.Diagnostics
	switch {
	case value.IsUnknown():
		return plannedAllowlist{}, diags
	case value.IsNull():
		return plannedAllowlist{known: true}, diags
	}
	parsed, err := parseAllowlist(value.ValueString())
	switch {
	case err != nil:
		return plannedAllowlist{}, diags // the attribute's validator reports it
	case parsed.planned != nil && r.deps != nil && parsed.stateDirMark != "" && parsed.stateDirMark != r.deps.stateDirMark():
		// Kept in another state dir, unless this one has it too.
		if _, err := r.deps.allowlists.Get(ctx, parsed.name); agentruntime.IsKind(err, agentruntime.KindNotFound) {
			diags.AddAttributeError(path.Root("env_allowlist"), "Env allowlist kept in another state dir",
				fmt.Sprintf("env_allowlist refers to the a2a_env_allowlist %q of a provider whose state dir is not this agent's, "+
					"so apply would not find it. %s", parsed.name, r.deps.allowlistNotFound(parsed.name)))
			return plannedAllowlist{}, diags
		}
		return plannedAllowlist{known: true, allowlist: parsed.planned}, diags
	case parsed.planned != nil:
		return plannedAllowlist{known: true, allowlist: parsed.planned}, diags
	case r.deps == nil:
		return plannedAllowlist{}, diags
	}
	allow, err := r.deps.allowlists.Get(ctx, parsed.name)
	switch {
	case agentruntime.IsKind(err, agentruntime.KindNotFound):
		return plannedAllowlist{}, diags // created by this plan, or reported at apply
	case err != nil:
		diags.AddAttributeError(path.Root("env_allowlist"), "Cannot read env allowlist", err.Error())
		return plannedAllowlist{}, diags
	}
	return plannedAllowlist{known: true, allowlist: &allow}, diags
}

// writeOnly is what the plan knows of the agent's env_wo values.
type writeOnly struct {
	values agentruntime.WriteOnlyValues
	known  bool // false: the map is not known yet, so any reference may be in it
	// seen is what the last refresh read of the agent's variables: the
	// write-only values the runtime keeps, the injected ones that changed.
	seen runtimeEnv
}

// agentChange is what applying a plan does to an existing agent. Plan and
// apply both derive it from the prior state and the plan, so they agree.
type agentChange struct {
	provision bool // the config, allowlist, injected variables, address or replicas changed: record it again
	start     bool // (re)start: stop if running, start, wait
	roll      bool // replace the running agent's instances with new ones, on a Roller: provisioning does it, and waits
	stop      bool // stop and leave stopped
	create    bool // a new agent: a failed start removes it again
	scale     bool // only the replicas of a running agent changed: provisioning scales it in place
	heal      bool // a degraded agent, which the runtime mends on its own: wait until it is healthy, touch nothing
}

// changeOf is what applying plan does to the agent of prior state, on a
// runtime that rolls agents (an agentruntime.Roller) or not.
func changeOf(prior, plan *agentModel, rolls bool) agentChange {
	if prior == nil {
		return agentChange{provision: true, start: plan.Running.ValueBool(), create: true}
	}
	respec := specChanged(prior, plan) || injectedChanged(prior, plan) || addressChanged(prior, plan) || settingsChanged(prior, plan)
	rescale := replicasOf(plan) != replicasOf(prior)
	c := agentChange{provision: respec || rescale}
	wasRunning, wantRunning := prior.Running.ValueBool(), plan.Running.ValueBool()
	// A running agent whose card stopped answering (hung, deadlocked) is
	// drift like a crashed one: apply restarts it.
	hung := wasRunning && prior.Health.ValueString() == string(agentruntime.HealthUnhealthy)
	restart := respec || !wasRunning || hung
	// A running agent changed (or hung) is restarted in place, unless the
	// runtime can run its new instances beside the old ones.
	c.roll = rolls && wantRunning && wasRunning && restart
	c.start = wantRunning && restart && !c.roll
	c.stop = !wantRunning && wasRunning
	c.scale = rescale && wantRunning && !c.start && !c.roll
	degraded := prior.Health.ValueString() == string(agentruntime.HealthDegraded)
	c.heal = degraded && wasRunning && wantRunning && !restart && !c.scale
	return c
}

// rolls says whether rt replaces running agents without downtime.
func rolls(rt agentruntime.Runtime) bool {
	_, ok := rt.(agentruntime.Roller)
	return ok
}

// specChanged reports whether the config, the allowlist it names or the
// version of its write-only values changed, or whether the agent must be
// provisioned again all the same: a refresh found it damaged, and forgot
// the digest of what was provisioned.
func specChanged(prior, plan *agentModel) bool {
	return !plan.Config.Equal(prior.Config) || prior.ConfigSHA256.IsNull() || allowlistName(plan.EnvAllowlist) != allowlistName(prior.EnvAllowlist) ||
		plan.EnvAllowlist.IsUnknown() || !plan.EnvWOVersion.Equal(prior.EnvWOVersion)
}

// settingsChanged reports whether the plan knows the agent's objects will
// carry other provider settings than they do. Objects that do not tell
// what they carry (made by an older release) are not known to differ.
func settingsChanged(prior, plan *agentModel) bool {
	return !prior.Settings.IsNull() && !plan.Settings.IsNull() && !plan.Settings.IsUnknown() && !plan.Settings.Equal(prior.Settings)
}

// planSettings plans the provider settings the agent's objects will carry
// if apply makes them: those the runtime gives the agent of cfg now. Where
// the plan cannot tell (no runtime configured yet, no config known yet, or
// objects that do not tell what they carry now), apply does.
func planSettings(ctx context.Context, rt agentruntime.Runtime, prior, plan *agentModel, cfg *agentconfig.Config) {
	runner, ok := rt.(agentruntime.SettingsRunner)
	switch {
	case rt != nil && !ok:
		plan.Settings = types.MapNull(types.StringType)
	case rt == nil || cfg == nil || plan.Config.IsUnknown() || !fullyKnown(plan.Kubernetes) || (prior != nil && prior.Settings.IsNull()):
		plan.Settings = types.MapUnknown(types.StringType)
	default:
		// checkWorkload has read the workload already, and reported
		// anything wrong with it.
		w, _ := workloadOf(ctx, plan.Kubernetes)
		plan.Settings = stringMap(runner.AgentSettings(cfg, w, replicasOf(plan)))
	}
}

// fullyKnown reports whether v holds no unknown value anywhere.
func fullyKnown(v attr.Value) bool {
	tv, err := v.ToTerraformValue(context.Background())
	return err == nil && tv.IsFullyKnown()
}

// addressChanged reports whether the plan knows the agent will have
// another address than it has.
func addressChanged(prior, plan *agentModel) bool {
	return !plan.Endpoint.IsUnknown() && !plan.Endpoint.IsNull() && !plan.Endpoint.Equal(prior.Endpoint)
}

// replicasOf is how many instances of the agent the model asks for; one
// until the plan knows.
func replicasOf(m *agentModel) int {
	if m.Replicas.IsNull() || m.Replicas.IsUnknown() {
		return 1
	}
	return int(m.Replicas.ValueInt64())
}

// planReplicas plans the runtime's default for an agent whose config sets
// no replicas: one, or as many as the provider block's kubernetes
// replicas. Each plan sets it afresh, so that a new default reaches such
// agents, and the value read back never differs from the one planned.
func planReplicas(rt agentruntime.Runtime, configured types.Int64, plan *agentModel) {
	switch runner, ok := rt.(agentruntime.ReplicaRunner); {
	case !configured.IsNull():
	case ok:
		plan.Replicas = types.Int64Value(int64(runner.DefaultReplicas()))
	case rt != nil:
		plan.Replicas = types.Int64Value(1)
	}
}

// checkReplicas refuses more than one instance of an agent on a runtime
// that runs one.
func checkReplicas(rt agentruntime.Runtime, plan *agentModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if rt == nil || replicasOf(plan) <= 1 {
		return diags
	}
	if _, ok := rt.(agentruntime.ReplicaRunner); ok {
		return diags
	}
	diags.AddAttributeError(path.Root("replicas"), "Replicas not supported by this adapter",
		fmt.Sprintf("The %s runtime runs one instance of an agent, and this agent asks for %d. Run it on the kubernetes adapter "+
			"(a kubernetes block in the provider block), or leave replicas out.", rt.Identity().Adapter, replicasOf(plan)))
	return diags
}

// injectedChanged reports whether the plan gives the agent other variables
// than it has, or may: its allowlist changed under an unchanged config.
// Adapters pass the variables recorded at provisioning to every start, so
// only provisioning again takes one away. Unknown planned variables (the
// stored allowlist no longer allows some) are settled by provisioning again.
func injectedChanged(prior, plan *agentModel) bool {
	if prior.InjectedEnv.IsNull() || prior.InjectedEnv.IsUnknown() {
		return false
	}
	return plan.InjectedEnv.IsUnknown() || !plan.InjectedEnv.Equal(prior.InjectedEnv)
}

// planAgent checks the planned config and sets the computed values the plan
// can know. It reports whether the change needs a new agent (a new id).
func planAgent(ctx context.Context, rt agentruntime.Runtime, prior, plan *agentModel, env plannedAllowlist, wo writeOnly) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	checked := checkSpec(ctx, rt, prior, plan, env, wo)
	cfg := checked.prepared.Config
	if plan.Config.IsUnknown() {
		plan.ID, plan.Name, plan.ConfigSHA256 = types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	} else {
		if cfg == nil {
			// Not checked, or refused: a config that does not parse is
			// reported as the parser locates it, before anything else.
			var err error
			if cfg, err = agentconfig.Parse([]byte(plan.Config.ValueString())); err != nil {
				return false, configDiags(err, nil)
			}
		}
		plan.ID = types.StringValue(cfg.ID())
		plan.Name = types.StringValue(cfg.Agent.Name)
		plan.ConfigSHA256 = types.StringValue(cfg.SHA256())
		diags.Append(taskStoreWarning(cfg, replicasOf(plan))...)
	}
	if cfg != nil && rt != nil && (prior == nil || prior.ID.ValueString() != cfg.ID()) {
		diags.Append(checkIDFree(ctx, rt, cfg, prior != nil)...)
		if diags.HasError() {
			return false, diags
		}
	}
	if prior != nil && cfg != nil && prior.ID.ValueString() != cfg.ID() {
		return true, diags
	}

	plan.InjectedEnv = types.ListUnknown(types.StringType)
	switch {
	case prior == nil || specChanged(prior, plan):
		switch {
		case !checked.done:
		case checked.err != nil && prior != nil && agentruntime.IsKind(checked.err, agentruntime.KindDisallowedEnv) && len(keptWriteOnly(wo, cfg.Raw())) > 0:
			diags.Append(keptWriteOnlyError(prior.ID.ValueString(), "its config, allowlist or env_wo_version changed", keptWriteOnly(wo, cfg.Raw()))...)
		case checked.err != nil:
			diags.Append(configDiags(checked.err, env.allowlist)...)
		case env.known && wo.known:
			plan.InjectedEnv = stringList(orEmpty(checked.prepared.InjectedEnv))
		}
	case env.known && plan.Running.ValueBool():
		// The config is unchanged, but its allowlist may have changed since
		// the agent was provisioned. A variable taken away is not an error
		// here: this same plan may give it back, and the allowlist's update
		// is applied before the agent's. injected_env left unknown makes
		// apply provision the agent again, checking the allowlist then.
		values := plannedWriteOnly(wo.values, wo.known, cfg.Raw())
		kept := keptWriteOnly(wo, cfg.Raw())
		if len(kept) > 0 {
			diags.Append(keptWriteOnlyWarning(cfg.ID(), kept)...)
		}
		injected, err := agentruntime.CheckEnv(env.allowlist, append(values.Names(), kept...), cfg.Raw())
		if err != nil {
			diags.Append(revokedDiags(err, cfg.ID(), env.allowlist)...)
			break
		}
		if !wo.known {
			break
		}
		plan.InjectedEnv = stringList(orEmpty(injected))
		if changed := stillInjected(wo.seen.Changed, injected); prior != nil && prior.Running.ValueBool() && len(changed) > 0 {
			// Equal names, other values: only provisioning again and
			// restarting gives the agent those of now.
			plan.InjectedEnv = types.ListUnknown(types.StringType)
			diags.Append(changedEnvWarning(cfg.ID(), changed)...)
		}
	default:
		// Stopping needs no variable, and an allowlist not known yet is
		// checked when the agent is next provisioned.
		plan.InjectedEnv = prior.InjectedEnv
	}
	if prior != nil && cfg != nil {
		// The address may follow a provider setting as well (the kubernetes
		// advertised_url template, the container advertise_host): one that
		// gives the agent another address is drift, which provisioning and
		// restarting the agent mends.
		if addr, ok := plannedAddress(rt, cfg); ok && addr.Endpoint != prior.Endpoint.ValueString() {
			plan.Endpoint, plan.CardURL = types.StringValue(addr.Endpoint), types.StringValue(addr.CardURL)
		}
	}
	planSettings(ctx, rt, prior, plan, cfg)
	change := changeOf(prior, plan, rolls(rt))
	if kept := keptWriteOnly(wo, []byte(plan.Config.ValueString())); prior != nil && change.provision && len(kept) > 0 && !diags.HasError() {
		diags.Append(keptWriteOnlyError(prior.ID.ValueString(), "what it receives changed", kept)...)
		return false, diags
	}
	if prior != nil && !change.provision {
		// Objects apply leaves alone keep the settings they carry.
		plan.Settings = prior.Settings
	}

	// A damaged agent may have lost the record of its port as well.
	if prior == nil || (change.provision && (cfg == nil || prior.ConfigSHA256.IsNull() || serverChanged(prior.Config, cfg))) {
		plan.Endpoint, plan.CardURL = types.StringUnknown(), types.StringUnknown()
		plan.Port = types.Int64Unknown()
		if addr, ok := plannedAddress(rt, cfg); ok {
			plan.Endpoint, plan.CardURL = types.StringValue(addr.Endpoint), types.StringValue(addr.CardURL)
			if addr.Port > 0 {
				plan.Port = types.Int64Value(int64(addr.Port))
			}
		}
	}
	plan.Health, plan.Instance = plannedProcess(prior, plan, change)
	plan.RestartCount = types.Int64Unknown()
	if prior != nil && plan.Health.Equal(prior.Health) && plan.Instance.Equal(prior.Instance) && !plan.Instance.IsUnknown() {
		// Apply leaves its process alone, and so its count.
		plan.RestartCount = prior.RestartCount
	}
	if (change.start || change.roll) && !change.provision && prior.Running.ValueBool() {
		diags.Append(restartWarning(prior)...)
	}
	if change.heal && plan.WaitForHealthy.ValueBool() {
		diags.AddAttributeWarning(path.Root("health"), "Agent "+prior.ID.ValueString()+" reads degraded; apply waits until it is healthy again",
			fmt.Sprintf("Agent %q answers, but some of its instances were lost (the refresh said which, and why). The runtime replaces "+
				"them on its own (on Kubernetes, the cluster reschedules the pods of a lost node once their tolerations run out): apply touches nothing, "+
				"and waits, within the update timeout, until the agent is healthy again.", prior.ID.ValueString()))
	}
	return false, diags
}

// restartWarning says why the plan restarts an agent whose config did not
// change: it runs but its card does not answer, which is also how an agent
// started without waiting reads while it is still starting, or, on
// Kubernetes, its pods do not all run its spec.
func restartWarning(prior *agentModel) diag.Diagnostics {
	var diags diag.Diagnostics
	detail := fmt.Sprintf("Agent %q is running but reads %q: its card does not answer, or, on Kubernetes, its pods do not all "+
		"run its current spec (a rollout that did not finish). Apply restarts it (on Kubernetes, rolls it over to new pods), as it does a hung agent.", prior.ID.ValueString(), prior.Health.ValueString())
	if !prior.WaitForHealthy.ValueBool() {
		detail += " With wait_for_healthy = false the last apply did not wait for the card, so the agent may only be still " +
			"starting: if so, refresh again once it answers (terraform plan -refresh-only) and this restart goes away."
	}
	diags.AddAttributeWarning(path.Root("health"), "Agent "+prior.ID.ValueString()+" will be restarted: it reads unhealthy", detail)
	return diags
}

// plannedAddress is where the runtime will publish the agent of cfg, when
// the config alone tells (its http_port fixes the port); nothing without a
// runtime, before the provider is configured.
func plannedAddress(rt agentruntime.Runtime, cfg *agentconfig.Config) (agentruntime.Address, bool) {
	if rt == nil || cfg == nil {
		return agentruntime.Address{}, false
	}
	return rt.PlannedAddress(cfg)
}

// checkedSpec is what the runtime's checks said of a planned spec.
type checkedSpec struct {
	done     bool // the spec was checked
	prepared agentruntime.Prepared
	err      error
}

// checkSpec runs the runtime's own checks of a new agent or a changed
// spec, once: what they return of the agent (its parsed config, the
// variables it will receive) serves the whole plan. An allowlist not known
// yet is checked at apply; every other check is made now.
func checkSpec(ctx context.Context, rt agentruntime.Runtime, prior, plan *agentModel, env plannedAllowlist, wo writeOnly) checkedSpec {
	if rt == nil || plan.Config.IsUnknown() || (prior != nil && !specChanged(prior, plan)) {
		return checkedSpec{}
	}
	raw := []byte(plan.Config.ValueString())
	spec := agentruntime.Spec{Config: raw, Allowlist: env.allowlist, AllowlistPending: !env.known, WriteOnly: plannedWriteOnly(wo.values, wo.known, raw)}
	p, err := rt.Check(ctx, spec)
	return checkedSpec{done: true, prepared: p, err: err}
}

// orEmpty makes "no variables" a known empty list rather than an unknown one.
func orEmpty(names []string) []string {
	if names == nil {
		return []string{}
	}
	return names
}

// plannedProcess predicts health and instance: known where apply will not
// touch the process or will wait until it is healthy.
func plannedProcess(prior, plan *agentModel, change agentChange) (types.String, types.String) {
	unknown := types.StringUnknown()
	switch {
	case plan.Running.IsUnknown():
		return unknown, unknown
	case change.start, change.roll, change.heal:
		if plan.WaitForHealthy.ValueBool() {
			return types.StringValue(string(agentruntime.HealthHealthy)), unknown
		}
		return unknown, unknown
	case prior == nil: // created, not started
		return types.StringValue(string(agentruntime.HealthProvisioned)), types.StringNull()
	case change.scale:
		// The instances it keeps stay as they are, joined or left by others.
		return prior.Health, unknown
	case change.provision:
		// Left stopped with a new config: every adapter reports an agent
		// that has run as stopped, and one that never ran as provisioned
		// (a rule of the contract suite).
		if prior.Health.ValueString() == string(agentruntime.HealthProvisioned) {
			return prior.Health, types.StringNull()
		}
		return types.StringValue(string(agentruntime.HealthStopped)), types.StringNull()
	case change.stop:
		return types.StringValue(string(agentruntime.HealthStopped)), types.StringNull()
	default:
		return prior.Health, prior.Instance
	}
}

// serverChanged reports whether the [server] section puts the agent at
// another address, the only part of a config the endpoint and port depend
// on. The prior config is parsed only when it is not the very same.
func serverChanged(priorConfig types.String, cfg *agentconfig.Config) bool {
	switch {
	case priorConfig.IsNull() || priorConfig.IsUnknown():
		return true
	case priorConfig.ValueString() == string(cfg.Raw()):
		return false
	}
	old, err := agentconfig.Parse([]byte(priorConfig.ValueString()))
	return err != nil || !old.Server.SameAddress(cfg.Server)
}

// configDiags turns a config or runtime error into diagnostics on the config
// attribute, one per located problem; an error about a provider block
// setting is the provider's, not the config's.
func configDiags(err error, allow *agentruntime.EnvAllowlist) diag.Diagnostics {
	var diags diag.Diagnostics
	at := path.Root("config")
	var cerr *agentconfig.Error
	if errors.As(err, &cerr) {
		for _, p := range cerr.Problems {
			diags.AddAttributeError(at, "Invalid agent config", p.String())
		}
		return diags
	}
	detail := agentruntime.Detail(err)
	if setting := agentruntime.SettingOf(err); setting != "" {
		// Not the agent's config: a setting of the provider block, which a
		// resource's diagnostic cannot point at, so the detail names it.
		diags.AddError("The provider block's "+setting+" cannot be used", detail)
		return diags
	}
	if agentruntime.IsKind(err, agentruntime.KindDisallowedEnv) {
		if allow != nil {
			detail += fmt.Sprintf(" If this same change adds them to env allowlist %q, set env_allowlist to its "+
				"reference (a2a_env_allowlist.<name>.reference), which carries the variables it is about to have.", allow.Name)
		}
		diags.AddAttributeError(at, "Agent config references disallowed variables", detail)
		return diags
	}
	if agentruntime.IsKind(err, agentruntime.KindUnsetEnv) {
		diags.AddAttributeError(at, "Agent config references variables without a value", detail)
		return diags
	}
	diags.AddAttributeError(at, "Agent config refused by the runtime", detail)
	return diags
}

// revokedDiags warns that an unchanged config references variables its
// allowlist, as stored now, no longer allows. The agent received them when
// it was last provisioned and would receive them again at every start, so
// apply provisions it again, and fails there if they are still disallowed.
func revokedDiags(err error, id string, allow *agentruntime.EnvAllowlist) diag.Diagnostics {
	var diags diag.Diagnostics
	vars := []string{}
	var rerr *agentruntime.Error
	if errors.As(err, &rerr) {
		vars = rerr.Vars
	}
	where := "which its config may not reference: the agent names no env_allowlist"
	if allow != nil {
		where = fmt.Sprintf("which env allowlist %q, as stored now, no longer allows", allow.Name)
	}
	diags.AddAttributeWarning(path.Root("config"), "Agent will be provisioned again: its allowlist took variables away",
		fmt.Sprintf("The config of agent %q references %s, %s. The agent received them when it was last provisioned, "+
			"so apply provisions it again and restarts it, after applying any change to the allowlist it refers to. "+
			"If the allowlist then still does not allow %s, the apply fails naming them: add them back to the "+
			"allowlist, or remove the references from the config (or set running = false).",
			id, strings.Join(vars, ", "), where, strings.Join(vars, ", ")))
	return diags
}
