package contracttest

import (
	"fmt"
	"testing"

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
