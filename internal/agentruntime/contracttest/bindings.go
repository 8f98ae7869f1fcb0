package contracttest

import (
	"net/url"
	"slices"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// testEveryBinding: the built-in host's card lists JSON-RPC, HTTP+JSON and
// gRPC, for 1.0 and 0.3, and the official SDK client gets an answer over
// each of them where the adapter publishes the agent: its one port
// carries every binding.
func testEveryBinding(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Bindings")
	startHealthy(t, rt, a.ID)
	parsed, err := card.Parse(h.card(t, a))
	if err != nil {
		t.Fatalf("the card of %s does not parse: %v", a.ID, err)
	}
	base := a.Endpoint
	if h.Reach != nil {
		base = h.Reach(t, a)
	}
	var listed []string
	for _, iface := range parsed.Card.SupportedInterfaces {
		listed = append(listed, string(iface.ProtocolBinding)+" "+string(iface.ProtocolVersion))
		endpoint := reachedAt(t, base, iface.URL)
		if iface.ProtocolBinding == a2acli.GRPC {
			endpoint = card.GRPCTarget(base)
		}
		text := "over " + listed[len(listed)-1]
		got, err := a2acli.Ask(ctx(t), endpoint, string(iface.ProtocolBinding), string(iface.ProtocolVersion), text)
		if err != nil || got != text {
			t.Errorf("%s at %s: answered %q, %v; want %q", listed[len(listed)-1], endpoint, got, err, text)
		}
	}
	want := []string{"JSONRPC 1.0", "HTTP+JSON 1.0", "GRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3", "GRPC 0.3"}
	if !slices.Equal(listed, want) {
		t.Errorf("the card lists %q, want %q", listed, want)
	}
}

// reachedAt is the URL of an interface with its scheme and host:port
// those of base, where the tests' machine reaches the agent; the path is
// the interface's.
func reachedAt(t *testing.T, base, ifaceURL string) string {
	t.Helper()
	b, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(ifaceURL)
	if err != nil {
		return base // a gRPC target, which has no path
	}
	u.Scheme, u.Host = b.Scheme, b.Host
	return u.String()
}
