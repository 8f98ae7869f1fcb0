package provider

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// secretSetting is a config value that is a secret, with the variable name
// the warning suggests for it.
type secretSetting struct {
	section, key, value, variable string
}

func secretSettings(cfg *agentconfig.Config) []secretSetting {
	settings := []secretSetting{
		{"auth", "bearer_token", cfg.Auth.BearerToken, "AGENT_BEARER_TOKEN"},
		{"card", "signing_key", cfg.Card.SigningKey, "AGENT_SIGNING_KEY"},
	}
	if cfg.Handler.LLM != nil {
		settings = append(settings, secretSetting{"handler.llm", "api_key", cfg.Handler.LLM.APIKey, "LLM_API_KEY"})
	}
	// Only the headers that carry credentials: others (a tenant id, say)
	// are no secret, and a warning on each would teach to ignore it.
	names := slices.Sorted(maps.Keys(cfg.Telemetry.OTLPHeaders))
	for _, name := range names {
		if isCredentialHeader(name) {
			variable := "OTLP_" + strings.ToUpper(strings.Map(func(r rune) rune {
				if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
					return r
				}
				return '_'
			}, name))
			settings = append(settings, secretSetting{"telemetry.otlp_headers", name, cfg.Telemetry.OTLPHeaders[name], variable})
		}
	}
	return settings
}

// isCredentialHeader reports whether a header's name says it carries a
// credential.
func isCredentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, word := range []string{"auth", "key", "token", "secret", "password", "cookie"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// literalSecretWarnings warns about each secret the config holds as a
// literal. `config` is not sensitive, so a literal reaches Terraform state
// and plan output, while a ${VAR} reference is expanded only by the agent
// host. A reference with a default counts as a literal: the default is.
func literalSecretWarnings(cfg *agentconfig.Config) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, s := range secretSettings(cfg) {
		if s.value == "" || isWholeReference(s.value) {
			continue
		}
		diags.AddAttributeWarning(path.Root("config"), "Secret written literally in the agent config",
			fmt.Sprintf("[%s] %s is a literal value, so Terraform stores it in state and shows it in plans. "+
				"Reference an environment variable instead: write %s = \"$${%s}\" in a config written inline "+
				"(a heredoc, where Terraform would otherwise interpolate ${...} itself), or %s = \"${%s}\" in a "+
				"config read with file(). Then list the variable in an a2a_env_allowlist and name that allowlist in "+
				"env_allowlist.", s.section, s.key, s.key, s.variable, s.key, s.variable))
	}
	return diags
}

// isWholeReference reports whether value is exactly one ${VAR} reference.
func isWholeReference(value string) bool {
	refs := agentconfig.References([]byte(value))
	return len(refs) == 1 && strings.TrimSpace(value) == "${"+refs[0]+"}"
}
