package provider

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// headerLog records the configured headers each request of a server carried.
type headerLog struct {
	mu   sync.Mutex
	seen []http.Header
}

func (l *headerLog) record(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, r.Header.Clone())
}

func (l *headerLog) any(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.seen {
		if h.Get(name) != "" {
			return true
		}
	}
	return false
}

// serveCardOn starts a server on addr that serves card10 at path and
// records the headers it receives.
func serveCardOn(t *testing.T, addr, path string, log *headerLog) string {
	t.Helper()
	l, err := new(net.ListenConfig).Listen(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s (every 127.0.0.0/8 address is loopback on Linux): %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.record(r)
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(card10))
	}))
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// redirectingServer answers every request with a 302 to target.
func redirectingServer(t *testing.T, target string, log *headerLog) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.record(r)
		http.Redirect(w, r, target, http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestAccAgentCardDataSource_redirectToAnotherHost: the headers configured
// for an agent, literal or from the environment, never reach another host
// a redirect leads to, and card_url is where the card came from.
func TestAccAgentCardDataSource_redirectToAnotherHost(t *testing.T) {
	isolateProviderState(t)
	t.Setenv("CARD_API_KEY", "key-for-the-agent-only")
	var originLog, targetLog headerLog
	target := serveCardOn(t, "127.0.0.2:0", card.WellKnownPath, &targetLog)
	origin := redirectingServer(t, target+card.WellKnownPath, &originLog)
	config := fmt.Sprintf(`data "a2a_agent_card" "test" {
  url                      = %q
  request_headers          = { X-Tenant = "acme" }
  request_headers_from_env = { X-Api-Key = "CARD_API_KEY" }
}
`, origin)
	runCardStep(t, config, "", cardCheck("name", "Planner", "card_url", target+card.WellKnownPath))
	if !originLog.any("X-Api-Key") || !originLog.any("X-Tenant") {
		t.Fatal("the agent itself did not receive the configured headers; the test cannot tell whether they leak")
	}
	for _, name := range []string{"X-Api-Key", "X-Tenant"} {
		if targetLog.any(name) {
			t.Errorf("header %s reached %s, another host than the agent's", name, target)
		}
	}
}

// TestAccAgentCardDataSource_redirectOnTheSameHost keeps the headers on a
// redirect that stays with the agent.
func TestAccAgentCardDataSource_redirectOnTheSameHost(t *testing.T) {
	isolateProviderState(t)
	t.Setenv("CARD_API_KEY", "key-for-the-agent-only")
	var log headerLog
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.record(r)
		if r.URL.Path == card.WellKnownPath {
			http.Redirect(w, r, base+"/v2/agent-card.json", http.StatusFound)
			return
		}
		if r.Header.Get("X-Api-Key") == "" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(card10))
	}))
	t.Cleanup(srv.Close)
	base = srv.URL
	config := fmt.Sprintf(`data "a2a_agent_card" "test" {
  url                      = %q
  request_headers_from_env = { X-Api-Key = "CARD_API_KEY" }
}
`, srv.URL)
	runCardStep(t, config, "", cardCheck("name", "Planner", "card_url", srv.URL+"/v2/agent-card.json"))
}
