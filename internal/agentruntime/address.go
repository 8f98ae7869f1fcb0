package agentruntime

import (
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// Address is where clients reach an agent.
type Address struct {
	Endpoint string
	CardURL  string
	Port     int
}

// AddressPlanner is implemented by runtimes that can tell from a config
// alone where its agent will be reached, so that a plan shows it.
type AddressPlanner interface {
	// PlannedAddress returns the address the agent of cfg will have once
	// provisioned, and false when only provisioning can tell (a port the
	// runtime allocates, an agent of its own that serves its card elsewhere).
	// A zero Port is one only provisioning tells, where the endpoint does
	// not depend on it.
	PlannedAddress(cfg *agentconfig.Config) (Address, bool)
}

// FixedAddress is the address of an agent whose config fixes its port,
// published on host unless the config advertises a URL of its own; false
// when the runtime allocates the port.
func FixedAddress(cfg *agentconfig.Config, host string) (Address, bool) {
	port := cfg.Server.HTTPPort
	if port == 0 {
		return Address{}, false
	}
	endpoint := card.Endpoint(cfg.Server.AdvertisedURL, host, port)
	return Address{Endpoint: endpoint, CardURL: card.CardURL(endpoint), Port: port}, true
}
