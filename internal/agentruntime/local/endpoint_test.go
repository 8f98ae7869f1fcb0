//go:build linux

package local

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestEndpointOfEveryAddress provisions agents listening on every address:
// they are advertised at loopback, where clients can reach them, and the
// card the agent serves says the same.
func TestEndpointOfEveryAddress(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	tests := []struct {
		name, host, reachable string
	}{
		{"every ipv4 address", "0.0.0.0", "127.0.0.1"},
		{"every ipv6 address", "::", "[::1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := provisionAndStart(t, rt, agentConfig("Everywhere "+tt.name, fmt.Sprintf("[server]\nhost = %q\n", tt.host)))
			want := fmt.Sprintf("http://%s:%d", tt.reachable, a.Port)
			if a.Endpoint != want || !strings.HasPrefix(a.CardURL, want+"/") {
				t.Errorf("endpoint %q, card url %q; want endpoint %q", a.Endpoint, a.CardURL, want)
			}
			card := fetch(t, a.CardURL)
			if !strings.Contains(card, `"`+want) || strings.Contains(card, tt.host+":") {
				t.Errorf("the card served does not advertise %s:\n%s", want, card)
			}
		})
	}
}

func fetch(t *testing.T, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(bg, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", url, resp.Status, err)
	}
	return string(body)
}
