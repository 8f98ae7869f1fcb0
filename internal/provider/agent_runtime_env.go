package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// privateEnvKey is the private-state key under which a refresh leaves what
// the runtime told of the agent's variables, for the plan that follows:
// names only, since private state is saved with the rest of the state.
const privateEnvKey = "runtime_env"

// runtimeEnv is what the runtime reported of the agent's variables at the
// last refresh or apply.
type runtimeEnv struct {
	// Changed are the injected variables the running agent holds another
	// value of than terraform's environment does now.
	Changed []string `json:"changed,omitempty"`
	// WriteOnly are the write-only values the runtime keeps for it.
	WriteOnly []string `json:"write_only,omitempty"`
}

func storedRuntimeEnv(ctx context.Context, p privateGetter) (runtimeEnv, diag.Diagnostics) {
	var seen runtimeEnv
	if p == nil {
		return seen, nil
	}
	raw, diags := p.GetKey(ctx, privateEnvKey)
	if diags.HasError() || len(raw) == 0 {
		return seen, diags
	}
	// Unreadable, it tells nothing; the next refresh rewrites it.
	_ = json.Unmarshal(raw, &seen)
	return seen, diags
}

func rememberRuntimeEnv(ctx context.Context, p privateSetter, seen runtimeEnv) diag.Diagnostics {
	raw, err := json.Marshal(seen)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Cannot record what the runtime reported of the agent's variables", err.Error())
		return diags
	}
	return p.SetKey(ctx, privateEnvKey, raw)
}

// keptWriteOnly names the write-only values the runtime keeps for the agent
// that its config references while the configuration gives env_wo no
// value at all: an adopted agent, whose generated configuration cannot
// hold values Terraform never reads back. Those values stay with the
// agent as long as nothing provisions it again.
func keptWriteOnly(wo writeOnly, raw []byte) []string {
	if !wo.known || wo.values != nil || len(wo.seen.WriteOnly) == 0 {
		return nil
	}
	var kept []string
	for _, ref := range agentconfig.References(raw) {
		if slices.Contains(wo.seen.WriteOnly, ref) && !slices.Contains(kept, ref) {
			kept = append(kept, ref)
		}
	}
	return kept
}

// envWOFill is the env_wo a configuration needs for the write-only values
// named, as it would be written.
func envWOFill(names []string) string {
	entries := make([]string, len(names))
	for i, n := range names {
		entries[i] = n + " = <value>"
	}
	return "env_wo = { " + strings.Join(entries, ", ") + " }"
}

// keptWriteOnlyWarning says that an agent without env_wo keeps the values
// it was given, and until when.
func keptWriteOnlyWarning(id string, kept []string) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddAttributeWarning(path.Root("env_wo"), "Agent "+id+" keeps write-only values this configuration does not give",
		fmt.Sprintf("The config of agent %q references %s, which the runtime keeps write-only values of, and env_wo is not set "+
			"(terraform query -generate-config-out writes env_wo = null, since Terraform never reads write-only values back). "+
			"The agent keeps running with the values it has. Any change that provisions it again (its config, its allowlist, "+
			"env_wo_version) needs them: before making one, set %s, from a sensitive variable or an ephemeral resource.",
			id, strings.Join(kept, ", "), envWOFill(kept)))
	return diags
}

// keptWriteOnlyError refuses a plan that would provision an agent again
// without the write-only values its config references and only the
// runtime holds: provisioning replaces them with none.
func keptWriteOnlyError(id, why string, kept []string) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddAttributeError(path.Root("env_wo"), "Agent "+id+" needs its write-only values again",
		fmt.Sprintf("Apply would provision agent %q again (%s), which replaces its write-only values with those env_wo gives, "+
			"and env_wo is not set, while its config references %s. Set %s in the configuration, from a sensitive "+
			"variable or an ephemeral resource, then plan again.", id, why, strings.Join(kept, ", "), envWOFill(kept)))
	return diags
}

// changedEnvWarning says why an unchanged agent is provisioned and
// restarted: variables it receives changed in terraform's environment.
func changedEnvWarning(id string, changed []string) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddAttributeWarning(path.Root("injected_env"), "Agent "+id+" will be restarted: "+strings.Join(changed, ", ")+" changed",
		fmt.Sprintf("Agent %q runs with other values of %s than terraform's environment holds now (set, changed or unset since "+
			"it started). Apply provisions it again with the values of now and restarts it (on Kubernetes, rolls it over). "+
			"To keep it as it runs, give %s the values it started with before applying.",
			id, strings.Join(changed, ", "), strings.Join(changed, ", ")))
	return diags
}

// seenOf is what a refresh keeps of agent a's variables.
func seenOf(a agentruntime.Agent) runtimeEnv {
	return runtimeEnv{Changed: a.ChangedEnv, WriteOnly: a.WriteOnly}
}

// stillInjected are the changed variables the agent is still to receive.
func stillInjected(changed, injected []string) []string {
	var still []string
	for _, name := range changed {
		if slices.Contains(injected, name) {
			still = append(still, name)
		}
	}
	return still
}
