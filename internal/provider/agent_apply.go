package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
)

func (r *agentResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan agentModel
	resp.Diagnostics.Append(readModel(ctx, req.Plan.Raw, req.Plan.Schema, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	raw := []byte(plan.Config.ValueString())
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		resp.Diagnostics.Append(configDiags(err, nil)...)
		return
	}
	id := cfg.ID()
	ctx = tflog.SetField(ctx, "agent_id", id)
	allow, diags := r.allowlist(ctx, plan.EnvAllowlist)
	resp.Diagnostics.Append(diags...)
	values, diags := appliedWriteOnly(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	workload, diags := workloadOf(ctx, plan.Kubernetes)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Create only, checked by the runtime as it creates: another resource
	// whose name gives the same id, or another run on the same runtime,
	// may be creating this agent right now, and only one may own it. An
	// agent replacing one of its id deleted just before gets its port back
	// when the port is free.
	_, err = r.deps.runtime.Provision(ctx, agentruntime.Spec{Config: raw, Allowlist: allow, WriteOnly: values, WriteOnlyVersion: woVersion(plan.EnvWOVersion),
		CreateOnly: true, Replicas: replicasOf(&plan),
		Workload: workload, PreferredPort: r.deps.releasedPort(id)})
	switch {
	case agentruntime.IsKind(err, agentruntime.KindConflict):
		resp.Diagnostics.AddAttributeError(path.Root("config"), "Agent already exists",
			fmt.Sprintf("An agent with id %q already exists in the runtime (%v). If it is the agent you mean, import it with "+
				"`terraform import a2a_agent.<resource name> %s`; otherwise change agent.name (another resource may declare a name "+
				"that gives the same id).", id, err, id))
		return
	case agentruntime.IsKind(err, agentruntime.KindUnmanaged):
		resp.Diagnostics.AddAttributeError(path.Root("config"), "Agent runs unmanaged", agentruntime.Detail(err))
		return
	case agentruntime.IsKind(err, agentruntime.KindBackend):
		// The runtime could not do it (an engine or registry that does not
		// answer): no fault of the config.
		resp.Diagnostics.AddError("Cannot create agent "+id, agentruntime.Detail(err))
		return
	case err != nil:
		resp.Diagnostics.Append(configDiags(err, allow)...)
		return
	}
	crashpoint.Hit("provider-create-provisioned")
	tflog.Info(ctx, "provisioned agent")
	resp.Diagnostics.Append(rememberIdentity(ctx, resp.Private, r.deps.runtime.Identity())...)
	resp.Diagnostics.Append(rememberRuntimeEnv(ctx, resp.Private, runtimeEnv{WriteOnly: values.Names()})...)
	// From here on the agent exists: every path saves it to state, so a
	// failure leaves it tainted and the next apply replaces it.
	r.startAndSave(ctx, id, &plan, changeOf(nil, &plan, false), &resp.State, &resp.Diagnostics)
}

func (r *agentResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state agentModel
	resp.Diagnostics.Append(readModel(ctx, req.State.Raw, req.State.Schema, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	stored, diags := storedIdentity(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	rt, release, err := r.runtimeOf(ctx, stored)
	if err != nil {
		// The plan replaces the agent, and the delete reports again what
		// stands in the way of stopping the old one.
		resp.Diagnostics.AddWarning("Cannot read agent "+id+" where it runs",
			fmt.Sprintf("Agent %q was started by the %s runtime, which cannot be reached now (%v). Its state is kept as it was.", id, stored, err))
		return
	}
	defer release()
	a, err := rt.Get(ctx, id)
	if agentruntime.IsKind(err, agentruntime.KindNotFound) {
		tflog.Info(ctx, "agent is gone from the runtime; removing it from state", map[string]any{"agent_id": id})
		resp.State.RemoveResource(ctx)
		return
	}
	if err == nil && a.Health == agentruntime.HealthDegraded {
		resp.Diagnostics.AddWarning("Agent "+id+" is degraded", fmt.Sprintf("Agent %q answers, but %s.", id, a.Degradation))
	}
	if err == nil && a.Failure != "" {
		resp.Diagnostics.AddWarning("Agent "+id+" stays down: it reached its restart limit", fmt.Sprintf("Agent %q: %s", id, a.Failure))
	}
	if agentruntime.IsKind(err, agentruntime.KindDamaged) && !importing(state) {
		// Forgetting the digest of what was provisioned makes the plan
		// provision the agent again from its declared config, which mends
		// it, while the config stays as it was, so that the plan shows
		// what changes rather than the whole config as new. A state saved
		// by a refresh alone has forgotten it already, and reads the same.
		resp.Diagnostics.AddWarning("Agent "+id+" is damaged; apply provisions it again", agentruntime.Detail(err))
		state.ConfigSHA256 = types.StringNull()
		resp.Diagnostics.Append(setModel(ctx, &resp.State, resp.State.Schema, &state)...)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read agent "+id, err.Error())
		return
	}
	if state.Config.IsNull() && len(a.Config) == 0 {
		resp.Diagnostics.AddError("Cannot import agent "+id,
			"The runtime does not record the config of this agent, so Terraform cannot adopt it. "+
				"Declare the agent with its config and remove the existing one instead.")
		return
	}
	if claimer, ok := rt.(agentruntime.Claimer); ok && a.Unclaimed {
		// Terraform tracks it: no later create may take it over.
		if err := claimer.Claim(ctx, id); err != nil {
			resp.Diagnostics.AddWarning("Cannot claim agent "+id, err.Error())
		}
	}
	read := state
	named := allowlistName(state.EnvAllowlist)
	state.setFromRuntime(a)
	if name := allowlistName(state.EnvAllowlist); name != "" && name != named {
		// Read back from the runtime (imported, or pointed at another
		// allowlist behind Terraform's back): given in the form the docs
		// recommend, a2a_env_allowlist.<name>.reference, so that an import
		// of an agent declared that way plans no change.
		state.EnvAllowlist = types.StringValue(r.referenceOf(ctx, name))
	}
	if !state.sameAs(&read) {
		resp.Diagnostics.Append(setModel(ctx, &resp.State, resp.State.Schema, &state)...)
	}
	// An agent without an identity (imported, or older) lives in the
	// runtime it was just found in; one found in a state dir that moved
	// learns its new path.
	resp.Diagnostics.Append(rememberIdentity(ctx, resp.Private, rt.Identity())...)
	resp.Diagnostics.Append(rememberRuntimeEnv(ctx, resp.Private, seenOf(a))...)
}

func (r *agentResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior agentModel
	resp.Diagnostics.Append(readModel(ctx, req.Plan.Raw, req.Plan.Schema, &plan)...)
	resp.Diagnostics.Append(readModel(ctx, req.State.Raw, req.State.Schema, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := prior.ID.ValueString()
	ctx = tflog.SetField(ctx, "agent_id", id)
	change := changeOf(&prior, &plan, rolls(r.deps.runtime))
	seen, diags := storedRuntimeEnv(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if change.provision || change.roll || change.start || change.stop {
		// Started afresh or stopped, it runs with no value of another time.
		seen.Changed = nil
	}

	if change.provision || change.roll {
		allow, diags := r.allowlist(ctx, plan.EnvAllowlist)
		resp.Diagnostics.Append(diags...)
		values, diags := appliedWriteOnly(ctx, req.Config)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		raw := []byte(plan.Config.ValueString())
		cfg, err := agentconfig.Parse(raw)
		if err != nil {
			resp.Diagnostics.Append(configDiags(err, allow)...)
			return
		}
		if cfg.ID() != id {
			// ModifyPlan replaces an agent whose name changes; reaching
			// here means the config was unknown at plan time. Provisioning
			// now would create an agent no state tracks.
			resp.Diagnostics.AddAttributeError(path.Root("config"), "Agent name changed during apply",
				fmt.Sprintf("The agent id changed from %q to %q, which needs a new agent. Run terraform apply again to replace it.", id, cfg.ID()))
			return
		}
		// The runtime checks that every variable has a value before it
		// touches the running agent, which keeps running when one has not.
		workload, diags := workloadOf(ctx, plan.Kubernetes)
		resp.Diagnostics.Append(diags...)
		if diags.HasError() {
			return
		}
		spec := agentruntime.Spec{Config: raw, Allowlist: allow, WriteOnly: values, WriteOnlyVersion: woVersion(plan.EnvWOVersion),
			Replicas: replicasOf(&plan), Workload: workload}
		provision := r.deps.runtime.Provision
		if change.roll {
			// Until the roll is done the agent is recorded as it was: the
			// state stays the prior one when it fails, and the next apply
			// rolls again.
			provision = r.deps.runtime.(agentruntime.Roller).Roll
		}
		a, err := provision(ctx, spec)
		if err != nil {
			resp.Diagnostics.Append(r.updateFailed(ctx, id, err)...)
			return
		}
		if change.roll && !a.Running {
			// It stopped since the plan (it crashed, or its objects were
			// deleted): it is started as a stopped agent is.
			change.roll, change.start = false, true
		}
		seen.WriteOnly = values.Names()
		crashpoint.Hit("provider-update-provisioned")
		tflog.Info(ctx, "provisioned new agent config", map[string]any{"rolled": change.roll})
	}
	if change.start || change.stop {
		if err := r.deps.runtime.Stop(ctx, id); err != nil {
			resp.Diagnostics.AddError("Cannot stop agent "+id, err.Error())
			return
		}
		crashpoint.Hit("provider-update-stopped")
		tflog.Info(ctx, "stopped agent")
	}
	resp.Diagnostics.Append(rememberIdentity(ctx, resp.Private, r.deps.runtime.Identity())...)
	resp.Diagnostics.Append(rememberRuntimeEnv(ctx, resp.Private, seen)...)
	if !change.provision && !change.start && !change.stop && !change.roll && !change.heal {
		// Only settings of the resource itself changed; the agent is untouched.
		resp.Diagnostics.Append(setModel(ctx, &resp.State, resp.State.Schema, &plan)...)
		return
	}
	r.startAndSave(ctx, id, &plan, change, &resp.State, &resp.Diagnostics)
}

func (r *agentResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state agentModel
	resp.Diagnostics.Append(readModel(ctx, req.State.Raw, req.State.Schema, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := state.ID.ValueString()
	stored, diags := storedIdentity(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	// Stopped through the runtime that started it, wherever the provider
	// block points now.
	rt, release, err := r.runtimeOf(ctx, stored)
	if err != nil {
		resp.Diagnostics.AddError("Cannot reach agent "+id+" to delete it", err.Error())
		return
	}
	defer release()
	if err := rt.Deprovision(ctx, id); err != nil {
		resp.Diagnostics.AddError("Cannot delete agent "+id, err.Error()+"; run terraform destroy again to retry.")
		return
	}
	r.deps.releasePort(id, state.Port)
	crashpoint.Hit("provider-delete-deprovisioned")
	tflog.Info(ctx, "deprovisioned agent", map[string]any{"agent_id": id})
}

// importing reports whether state is what an import begins with: the id,
// and nothing the provider has read yet.
func importing(state agentModel) bool { return state.Config.IsNull() && state.Name.IsNull() }

// startAndSave starts the agent when the change asks for it, waits until it is
// healthy, and saves what the runtime then reports. A new agent that fails to
// start is removed again, its log tail reported; any other agent is saved
// even when the start fails, so the next apply replaces or restarts it.
func (r *agentResource) startAndSave(ctx context.Context, id string, plan *agentModel, change agentChange, state *tfsdk.State, diags *diag.Diagnostics) {
	var health agentruntime.Health
	var startErr error
	if change.start {
		startErr = r.deps.runtime.Start(ctx, id)
		if agentruntime.IsKind(startErr, agentruntime.KindAlreadyRunning) {
			// A create that died after starting the agent, taken over now:
			// the agent runs the config just provisioned.
			startErr = nil
		}
		crashpoint.Hit("provider-settle-started")
		if startErr == nil && plan.WaitForHealthy.ValueBool() {
			health, startErr = agentruntime.WaitHealthy(ctx, r.deps.runtime, id)
		}
	}
	var healErr error
	if change.heal && plan.WaitForHealthy.ValueBool() {
		// The runtime replaces what the agent lost on its own; stopping it
		// on a timeout would only take away what still serves.
		health, healErr = agentruntime.WaitHealthy(ctx, r.deps.runtime, id)
	}
	if startErr != nil {
		if change.create && r.removeFailed(ctx, id, startErr, diags) {
			return
		}
		r.stopFailed(ctx, id)
	}
	// A timed-out ctx must not stop us recording what exists.
	observeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), agentruntime.ProbeTimeout+5*time.Second)
	defer cancel()
	a, err := r.deps.runtime.Get(observeCtx, id)
	if err != nil {
		// The agent exists all the same: saving what the plan knows keeps
		// it tracked (a new one tainted), so a later apply or destroy
		// removes it instead of leaking it.
		plan.forgetUnknowns()
		diags.Append(setModel(ctx, state, state.Schema, plan)...)
		detail := err.Error()
		if startErr != nil {
			detail = startErr.Error() + "; then reading it back failed: " + detail
		}
		diags.AddError("Cannot read agent "+id+" after provisioning it",
			detail+". Terraform has saved the agent, so terraform apply replaces it and terraform destroy removes it.")
		return
	}
	switch {
	case startErr == nil && healErr == nil && health == agentruntime.HealthHealthy:
		a.Health = health
	case change.roll && a.Running:
		// The roll returned once the new instances' cards answered.
		a.Health = agentruntime.HealthHealthy
	}
	// The planned config is what was provisioned, whether or not the
	// runtime records it.
	a.Config = []byte(plan.Config.ValueString())
	a.EnvAllowlist = plan.EnvAllowlist.ValueString()
	planned := plan.Replicas
	plan.setFromRuntime(a)
	if autoscaled(ctx, plan) {
		// The autoscaler may have changed the count since the plan, which
		// the state must match: the next refresh reads what it is now.
		plan.Replicas = planned
	}
	diags.Append(setModel(ctx, state, state.Schema, plan)...)
	if startErr != nil {
		diags.AddError("Agent "+id+" did not start", startErr.Error()+r.logTail(observeCtx, id))
		return
	}
	if healErr != nil {
		diags.AddError("Agent "+id+" is still degraded", healErr.Error()+
			". It runs on as it is, and state records what it is now: the next plan shows it again, and the runtime's events say what keeps it from replacing the lost instances.")
		return
	}
	for _, warning := range []diag.Diagnostic{unreachableCardWarning(a), cardDeviationsWarning(a.CardURL, a.Card)} {
		if warning != nil {
			diags.Append(warning)
		}
	}
	tflog.Info(ctx, "agent settled", map[string]any{"health": string(a.Health), "instance": a.Instance})
}

// updateFailed is the diagnostic of a Provision of an existing agent that
// failed: the config's problems at the config attribute (no ordering hint:
// by now any change to the allowlist the agent refers to has been applied),
// else what the runtime could not do, with the agent's last log lines and
// events, which tell why its new pods did not become ready.
func (r *agentResource) updateFailed(ctx context.Context, id string, err error) diag.Diagnostics {
	var diags diag.Diagnostics
	var rollout *agentruntime.RolloutError
	switch {
	case errors.As(err, &rollout):
		// The new instances are gone, and their logs with them: the
		// error holds what they said.
		diags.AddError("Agent "+id+" was not updated: its new instances did not become healthy",
			agentruntime.Detail(err)+"\n\nThe previous instances serve on, with the previous config; Terraform keeps it in state, "+
				"so the next apply tries again. Fix the cause and apply, or revert the change and apply to keep the previous config."+
				logSection(rollout.Logs, nil)+eventSection(rollout.Events, nil))
	case agentruntime.IsKind(err, agentruntime.KindBackend):
		observeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), agentruntime.ProbeTimeout)
		defer cancel()
		diags.AddError("Cannot update agent "+id, agentruntime.Detail(err)+r.logTail(observeCtx, id))
	default:
		return configDiags(err, nil)
	}
	return diags
}

// removeFailed deprovisions a new agent whose start failed: nothing of it
// ever ran healthy, so nothing is kept (no record, no container, no process),
// and the error carries its log tail, read before the log goes. It reports
// false when the agent cannot be removed; the caller then saves it, tainted,
// so that it stays tracked. A crash before the removal leaves an unclaimed
// record, which the next create takes over.
func (r *agentResource) removeFailed(ctx context.Context, id string, startErr error, diags *diag.Diagnostics) bool {
	cleanupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), failedStartStopTimeout+agentruntime.ProbeTimeout)
	defer cancel()
	tail := r.logTail(cleanupCtx, id)
	if err := r.deps.runtime.Deprovision(cleanupCtx, id); err != nil {
		tflog.Warn(ctx, "cannot remove the agent after its failed start; saving it tainted", map[string]any{"agent_id": id, "error": err.Error()})
		return false
	}
	diags.AddError("Agent "+id+" did not start",
		startErr.Error()+"\n\nThe agent was removed again: nothing of it is left running or recorded. Fix the cause and apply again."+tail)
	return true
}

// stopFailed stops an agent whose start failed, so that it neither loops
// under an engine's restart policy nor lingers unhealthy until the next
// apply; its record and log stay for the diagnostic and the replacement.
func (r *agentResource) stopFailed(ctx context.Context, id string) {
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), failedStartStopTimeout)
	defer cancel()
	if err := r.deps.runtime.Stop(stopCtx, id); err != nil {
		tflog.Warn(ctx, "cannot stop the agent after its failed start", map[string]any{"agent_id": id, "error": err.Error()})
	}
}

// logTail formats, for a failed start's diagnostic, the last lines of the
// agent's log and, where the runtime records them, its last events.
func (r *agentResource) logTail(ctx context.Context, id string) string {
	out := logSection(r.deps.runtime.Logs(ctx, id, logTailLines))
	if reader, ok := r.deps.runtime.(agentruntime.EventReader); ok {
		out += eventSection(reader.Events(ctx, id, eventTailCount))
	}
	return out
}

// logSection formats the agent's last log lines, or why they cannot be
// read, for a diagnostic.
func logSection(lines []string, err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf("\n\nThe agent's log cannot be read: %v", err)
	case len(lines) == 0:
		return "\n\nThe agent wrote nothing to its log."
	}
	lines = bounded(lines[max(0, len(lines)-logTailLines):], false)
	return fmt.Sprintf("\n\nLast %d lines of the agent's log:\n%s", len(lines), strings.Join(lines, "\n"))
}

// eventSection formats the agent's last events, or why they cannot be
// read, for a diagnostic; nothing when there are none.
func eventSection(events []string, err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf("\n\nThe agent's events cannot be read: %v", err)
	case len(events) == 0:
		return ""
	}
	events = bounded(events[max(0, len(events)-eventTailCount):], true)
	return fmt.Sprintf("\n\nLast %d events of the agent:\n%s", len(events), strings.Join(events, "\n"))
}

// bounded is the last of lines that fit logTailBytes, each made printable
// and cut to logLineBytes: a log, or an event's message, may hold anything.
// A log line keeps its end, where the error usually is; with keepStart, a
// line keeps its start, where an event names its kind and object.
func bounded(lines []string, keepStart bool) []string {
	total := 0
	for i := len(lines) - 1; i >= 0; i-- {
		lines[i] = agentruntime.Printable(lines[i])
		switch cut := len(lines[i]) - logLineBytes; {
		case cut > 0 && keepStart:
			end := logLineBytes
			for !utf8.RuneStart(lines[i][end]) {
				end--
			}
			lines[i] = lines[i][:end] + "…"
		case cut > 0:
			for !utf8.RuneStart(lines[i][cut]) {
				cut++
			}
			lines[i] = "…" + lines[i][cut:]
		}
		if total += len(lines[i]) + 1; total > logTailBytes {
			return lines[i+1:]
		}
	}
	return lines
}

// referenceOf is the reference of allowlist name as stored, or the bare
// name when the store cannot tell its variables.
func (r *agentResource) referenceOf(ctx context.Context, name string) string {
	allow, err := r.deps.allowlists.Get(ctx, name)
	if err != nil {
		return name
	}
	return allowlistReference(allow.Name, allow.Variables, r.deps.stateDirMark())
}

// allowlist loads the allowlist an agent names, as stored: by apply, any
// change to it this plan makes is applied. Nil when the agent names none.
func (r *agentResource) allowlist(ctx context.Context, value types.String) (*agentruntime.EnvAllowlist, diag.Diagnostics) {
	var diags diag.Diagnostics
	name := allowlistName(value)
	if name == "" {
		return nil, diags
	}
	allow, err := r.deps.allowlists.Get(ctx, name)
	switch {
	case agentruntime.IsKind(err, agentruntime.KindNotFound):
		diags.AddAttributeError(path.Root("env_allowlist"), "Env allowlist not found", r.deps.allowlistNotFound(name))
		return nil, diags
	case err != nil:
		diags.AddAttributeError(path.Root("env_allowlist"), "Cannot read env allowlist", err.Error())
		return nil, diags
	}
	return &allow, diags
}
