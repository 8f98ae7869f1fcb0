// Package card derives, parses, validates and signs A2A Agent Cards.
package card

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// WellKnownPath is where an agent publishes its card.
const WellKnownPath = "/.well-known/agent-card.json"

// Derive builds the card the agent host publishes for cfg at endpoint (the
// advertised base URL, where JSON-RPC is served).
func Derive(cfg *agentconfig.Config, endpoint string) (*a2a.AgentCard, error) {
	return &a2a.AgentCard{
		Name:        cfg.Agent.Name,
		Description: cfg.Agent.Description,
		Version:     cfg.Agent.Version,
		SupportedInterfaces: []*a2a.AgentInterface{{
			URL: endpoint, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0",
		}},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             []a2a.AgentSkill{},
	}, nil
}
