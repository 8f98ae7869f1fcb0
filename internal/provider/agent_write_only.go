package provider

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// writeOnlyAttributes are the agent's write-only values and the version
// whose change rolls them out: Terraform keeps the values out of state and
// plans, so it cannot see them change.
func writeOnlyAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"env_wo": schema.MapAttribute{
			Optional: true, Sensitive: true, WriteOnly: true, ElementType: types.StringType,
			MarkdownDescription: "Write-only values for variables the config references as `${NAME}`, keyed by name: " +
				"secrets such as API keys and bearer tokens, from sensitive or ephemeral variables or ephemeral resources. " +
				"Terraform never stores them in state or shows them in plans (Terraform 1.11 or later). The runtime keeps " +
				"them where the agent can read them again when it restarts without Terraform (see the " +
				"[secrets guide](../guides/secrets.md)); they take precedence over allowlisted variables of the same name, " +
				"and need no allowlist. `HOST`, `PORT` and `A2A_ADVERTISED_URL`, which the runtime sets for every agent, are refused.\n\n  " +
				"Terraform cannot see a change of these values: changing them alone changes nothing. " +
				"Change `env_wo_version` to restart the agent with the new values.\n\n  " +
				"An agent adopted without `env_wo` (`terraform query " +
				"-generate-config-out` writes `env_wo = null`) keeps the values the runtime holds for it, and the plan warns which: set them " +
				"here before any change that provisions the agent again, which the plan otherwise refuses.",
			Validators: []validator.Map{mapvalidator.KeysAre(envNameValidator(), notOwnedValidator())},
		},
		"env_wo_version": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Any number; changing it restarts the agent with the current `env_wo` values. Bump it " +
				"whenever they change, such as after rotating a secret.",
		},
	}
}

// woVersion is env_wo_version as the runtime records it: empty for none.
func woVersion(v types.Int64) string {
	if v.IsNull() || v.IsUnknown() {
		return ""
	}
	return strconv.FormatInt(v.ValueInt64(), 10)
}

// writeOnlyValues reads env_wo from the configuration, where alone
// Terraform passes it. known is false when the map itself is not known
// yet (an ephemeral resource opened only at apply); values not known yet
// are empty, which serves the plan's checks, for which names suffice.
func writeOnlyValues(ctx context.Context, config tfsdk.Config) (values agentruntime.WriteOnlyValues, known bool, diags diag.Diagnostics) {
	var m types.Map
	diags.Append(config.GetAttribute(ctx, path.Root("env_wo"), &m)...)
	if diags.HasError() || m.IsUnknown() {
		return nil, false, diags
	}
	if m.IsNull() {
		return nil, true, diags
	}
	values = agentruntime.WriteOnlyValues{}
	for name, v := range m.Elements() {
		if s, ok := v.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			values[name] = s.ValueString()
		} else {
			values[name] = ""
		}
	}
	return values, true, diags
}

// plannedWriteOnly is what the plan knows of the agent's write-only values:
// every name when the map is known, else every variable the config
// references, any of which the map may yet give a value.
func plannedWriteOnly(values agentruntime.WriteOnlyValues, known bool, raw []byte) agentruntime.WriteOnlyValues {
	if known {
		return values
	}
	all := agentruntime.WriteOnlyValues{}
	for _, name := range agentconfig.References(raw) {
		all[name] = ""
	}
	return all
}

// appliedWriteOnly reads env_wo at apply, when Terraform has every value.
func appliedWriteOnly(ctx context.Context, config tfsdk.Config) (agentruntime.WriteOnlyValues, diag.Diagnostics) {
	values, known, diags := writeOnlyValues(ctx, config)
	if !diags.HasError() && !known {
		diags.AddAttributeError(path.Root("env_wo"), "Write-only values not known at apply",
			"Terraform passed env_wo without its values; this is a bug in Terraform or the provider, please report it.")
	}
	return values, diags
}
