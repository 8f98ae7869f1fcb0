package contracttest

import (
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// ownedProbe is text that shows the variables every agent is given, as
// NAME=value words, once an agent fills them in.
const ownedProbe = "PORT=${PORT} HOST=${HOST} A2A_ADVERTISED_URL=${A2A_ADVERTISED_URL}"

// ownedVariables are the variables ownedProbe shows.
var ownedVariables = []string{agentconfig.PortVar, agentconfig.HostVar, agentconfig.AdvertisedURLVar}

// testOwnedVariables: a built-in agent's config may use PORT, HOST and
// A2A_ADVERTISED_URL with no allowlist, and the agent serves them valued
// where it listens (as its host logs) and where clients reach it (its
// endpoint). A brought agent, when the adapter runs one, is given the same
// three, its HOST the same as the built-in agent's.
func testOwnedVariables(t *testing.T, h Harness) {
	rt := h.New(t)
	raw := append(h.Config("Contract Owned"), "\n[[skills]]\nid = \"owned\"\nname = \"owned\"\ndescription = \""+ownedProbe+"\"\n"...)
	spec := agentruntime.Spec{Config: raw}
	if _, err := rt.Check(ctx(t), spec); err != nil {
		t.Fatalf("Check of a config using the owned variables, with no allowlist: %v", err)
	}
	a := provisionSpec(t, rt, spec)
	startHealthy(t, rt, a.ID)
	builtIn := servedOwned(t, rt, a, func(c agentruntime.Agent) string {
		for _, s := range c.Card.Card.Skills {
			if s.ID == "owned" {
				return s.Description
			}
		}
		return ""
	})
	wantListening(t, rt, a.ID, builtIn, func(line string) (string, bool) {
		if !isAgentStart(line, a.ID) {
			return "", false
		}
		return logField(line, "listen"), true
	})
	if h.Brought == nil {
		return
	}

	serve := append(slices.Clone(echoServe), "--description", ownedProbe)
	b := provisionSpec(t, rt, agentruntime.Spec{Config: h.Brought(t, "Contract Owned Brought", serve, nil)})
	startHealthy(t, rt, b.ID)
	brought := servedOwned(t, rt, b, func(c agentruntime.Agent) string { return c.Card.Card.Description })
	if brought[agentconfig.HostVar] != builtIn[agentconfig.HostVar] {
		t.Errorf("the brought agent was given HOST %q, the built-in agent %q: every agent of a runtime listens on the same address",
			brought[agentconfig.HostVar], builtIn[agentconfig.HostVar])
	}
	// The a2a tool says where it listens as "Listening on <address>".
	wantListening(t, rt, b.ID, brought, func(line string) (string, bool) {
		_, addr, ok := strings.Cut(line, "Listening on ")
		return strings.TrimSpace(addr), ok
	})
}

// servedOwned returns the owned variables as the healthy agent a serves
// them in its card, at the text of it shown picks, and checks that
// A2A_ADVERTISED_URL is a's endpoint.
func servedOwned(t *testing.T, rt agentruntime.Runtime, a agentruntime.Agent, shown func(agentruntime.Agent) string) map[string]string {
	t.Helper()
	got, err := rt.Get(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Card == nil {
		t.Fatalf("Get of healthy agent %s holds no card: %v", a.ID, got.CardError)
	}
	text := shown(got)
	values := map[string]string{}
	for _, word := range strings.Fields(text) {
		name, value, _ := strings.Cut(word, "=")
		values[name] = value
	}
	for _, name := range ownedVariables {
		if values[name] == "" {
			t.Fatalf("agent %s serves %q, which gives %s no value", a.ID, text, name)
		}
	}
	if got := values[agentconfig.AdvertisedURLVar]; got != a.Endpoint {
		t.Errorf("agent %s was given A2A_ADVERTISED_URL %q, want its endpoint %q", a.ID, got, a.Endpoint)
	}
	return values
}

// wantListening checks that agent id's logs, at the last line where
// address finds where it listens, show it listening at its HOST and PORT.
func wantListening(t *testing.T, rt agentruntime.Runtime, id string, owned map[string]string, address func(line string) (string, bool)) {
	t.Helper()
	host, port := owned[agentconfig.HostVar], owned[agentconfig.PortVar]
	listening := ""
	waitLogs(t, rt, id, func(lines []string) bool {
		for _, line := range slices.Backward(lines) {
			if addr, ok := address(line); ok {
				listening = addr
				return true
			}
		}
		return false
	}, func() string { return "no line that says where the agent listens" })
	if !listensAt(listening, host, port) {
		t.Errorf("agent %s was given HOST %q and PORT %q but listens at %s", id, host, port, listening)
	}
}

// listensAt reports whether addr, a listener's address, is host and port,
// any unspecified address standing for any other (Go shows 0.0.0.0 as [::]).
func listensAt(addr, host, port string) bool {
	h, p, err := net.SplitHostPort(addr)
	if err != nil || p != port {
		return false
	}
	if h == host {
		return true
	}
	a, errA := netip.ParseAddr(h)
	b, errB := netip.ParseAddr(host)
	return errA == nil && errB == nil && a.IsUnspecified() && b.IsUnspecified()
}

// logField is the value of key in a log line of key=value pairs.
func logField(line, key string) string {
	_, rest, ok := strings.Cut(line, " "+key+"=")
	if !ok {
		return ""
	}
	value, _, _ := strings.Cut(rest, " ")
	return strings.Trim(value, `"`)
}
