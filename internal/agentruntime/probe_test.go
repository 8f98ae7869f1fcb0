package agentruntime

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

const card03 = `{"name":"Old","description":"d","version":"1","url":"http://127.0.0.1:1/","protocolVersion":"0.3.0",
"preferredTransport":"JSONRPC","capabilities":{},"defaultInputModes":["text"],"defaultOutputModes":["text"],
"skills":[{"id":"s","name":"s","description":"d","tags":["t"]}]}`

// TestCheckCard checks where a card is looked for and what makes an agent
// healthy: a card that parses, at the first path that serves one.
func TestCheckCard(t *testing.T) {
	tests := []struct {
		name     string
		served   map[string]string
		paths    []string
		healthy  bool
		wantPath string
		wantErr  string
	}{
		{"0.3 agent at the old path", map[string]string{agentconfig.LegacyCardPath: card03}, nil, true, agentconfig.LegacyCardPath, ""},
		{"configured path", map[string]string{"/cards/me.json": card03}, []string{"/cards/me.json"}, true, "/cards/me.json", ""},
		{"invalid card", map[string]string{agentconfig.DefaultCardPath: `{"name":"x"}`}, nil, false, agentconfig.DefaultCardPath, "$.supportedInterfaces"},
		{"invalid card stops the search", map[string]string{agentconfig.DefaultCardPath: `[]`, agentconfig.LegacyCardPath: card03}, nil, false, agentconfig.DefaultCardPath, "must be a JSON object"},
		{"no card", map[string]string{}, nil, false, agentconfig.DefaultCardPath, "404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, ok := tt.served[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			paths := tt.paths
			if paths == nil {
				paths = agentconfig.Runtime{}.CardPaths()
			}
			c := CheckCard(t.Context(), srv.URL, paths)
			if c.Healthy() != tt.healthy || c.URL != srv.URL+tt.wantPath {
				t.Fatalf("CheckCard = healthy %v at %s (%v), want %v at %s", c.Healthy(), c.URL, c.Err, tt.healthy, tt.wantPath)
			}
			if tt.wantErr != "" && (c.Err == nil || !strings.Contains(c.Err.Error(), tt.wantErr)) {
				t.Errorf("CheckCard error %v, want one mentioning %q", c.Err, tt.wantErr)
			}
			var invalid *card.ValidationError
			if tt.healthy && c.Card == nil || !tt.healthy && tt.wantErr == "$.supportedInterfaces" && !errors.As(c.Err, &invalid) {
				t.Errorf("CheckCard = %+v", c)
			}
		})
	}
}
