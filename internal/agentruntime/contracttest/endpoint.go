package contracttest

import (
	"fmt"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// testAdvertisedURLTrailingSlash: an advertised_url ending in a slash, the
// form a base URL is often written in, names the same card as one without,
// and the agent reads healthy at it.
func testAdvertisedURLTrailingSlash(t *testing.T, h Harness) {
	rt := h.New(t)
	port := a2acli.FreePort(t)
	raw := fmt.Appendf(h.Config("Contract Slash"), "\n[server]\nhttp_port = %d\nadvertised_url = \"http://127.0.0.1:%d/\"\n", port, port)
	a := provisionSpec(t, rt, agentruntime.Spec{Config: raw})
	if want := fmt.Sprintf("http://127.0.0.1:%d/.well-known/agent-card.json", port); a.CardURL != want {
		t.Errorf("CardURL = %q, want %q", a.CardURL, want)
	}
	startHealthy(t, rt, a.ID)
}

// testPlannedAddress: a runtime plans exactly the endpoint, card URL and
// port Provision then gives, and plans none for a port it allocates itself.
func testPlannedAddress(t *testing.T, h Harness) {
	rt := h.New(t)
	allocated, err := agentconfig.Parse(h.Config("Contract Allocated"))
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := rt.PlannedAddress(allocated); ok {
		t.Errorf("PlannedAddress without http_port = %+v, but the port is only known once allocated", a)
	}
	raw := fmt.Appendf(h.Config("Contract Planned"), "\n[server]\nhttp_port = %d\n", a2acli.FreePort(t))
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	planned, ok := rt.PlannedAddress(cfg)
	if !ok {
		t.Fatal("PlannedAddress with http_port set planned nothing")
	}
	a := provisionSpec(t, rt, agentruntime.Spec{Config: raw})
	if got := (agentruntime.Address{Endpoint: a.Endpoint, CardURL: a.CardURL, Port: a.Port}); got != planned {
		t.Errorf("Provision gave %+v, PlannedAddress planned %+v", got, planned)
	}
}
