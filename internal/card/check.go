package card

import (
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// CheckConfig checks, before an agent starts, what Derive and Sign need from
// cfg, so that a mistake fails the plan rather than the start: a complete
// provider, and a signing key written literally that Sign can use. A value
// given through a ${...} reference is known only when the host expands it at
// start, where Derive and Sign check it again. Problems are located in the
// config like those agentconfig.Parse reports.
func CheckConfig(cfg *agentconfig.Config) error {
	if err := cfg.Agent.Provider.Check(); err != nil {
		return cfg.Invalid("agent.provider", err.Error())
	}
	if key := cfg.Card.SigningKey; key != "" && !agentconfig.HasReference(key) {
		if _, _, err := parsePrivateKey([]byte(key)); err != nil {
			return cfg.Invalid("card.signing_key", "[card] "+err.Error())
		}
	}
	return nil
}
