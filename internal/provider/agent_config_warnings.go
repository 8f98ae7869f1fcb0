package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// configWarnings are the warnings about a config that parses: what it
// does that is allowed but likely not meant.
func configWarnings(cfg *agentconfig.Config) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.Append(literalSecretWarnings(cfg)...)
	diags.Append(lostLettersWarning(cfg)...)
	diags.Append(v03FieldsWarning(cfg)...)
	diags.Append(escapedReferencesWarning(cfg.Raw())...)
	return diags
}

// escapedReferencesWarning names each reference the config writes as
// $${VAR}: Terraform's escape, which reaches the agent host only from text
// Terraform does not interpolate (a file read with file()), and which the
// host reads as a $ followed by the reference.
func escapedReferencesWarning(raw []byte) diag.Diagnostics {
	var diags diag.Diagnostics
	escaped := agentconfig.EscapedReferences(raw)
	if len(escaped) == 0 {
		return diags
	}
	sites := make([]string, len(escaped))
	for i, e := range escaped {
		sites[i] = fmt.Sprintf("%s: %s", e.Site, e.Written)
	}
	first := escaped[0].Written
	diags.AddAttributeWarning(path.Root("config"), "Agent config writes a reference as $${VAR}",
		fmt.Sprintf("%s. The agent host reads each as a $ followed by the reference after it, so %s becomes a $ and the "+
			"value of %s. $${...} is Terraform's escape in a string it interpolates, such as a heredoc, where Terraform turns "+
			"it into ${...}; in a config read with file(), which Terraform does not interpolate, write %s.",
			strings.Join(sites, "; "), first, first[1:], first[1:]))
	return diags
}

// unknownConfigWarning says that a config known only at apply is checked
// only then: the plan cannot check what it cannot read.
func unknownConfigWarning() diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddAttributeWarning(path.Root("config"), "Agent config known only at apply, and checked then",
		"The config interpolates a value Terraform learns only during apply, such as the endpoint of an agent this same "+
			"apply creates, so this plan cannot check it. Apply checks it as soon as it is known, before it creates or changes "+
			"this agent but after applying what it depends on, which a problem in the config then leaves applied. To have it "+
			"checked at plan, interpolate values known at plan: an agent's endpoint is known at plan when its config sets "+
			"[server] http_port.")
	return diags
}
