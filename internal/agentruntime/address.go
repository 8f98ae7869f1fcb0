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
