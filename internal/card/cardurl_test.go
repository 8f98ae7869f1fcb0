package card

import "testing"

func TestCardURL(t *testing.T) {
	tests := map[string]string{
		"http://127.0.0.1:8080":         "http://127.0.0.1:8080/.well-known/agent-card.json",
		"http://127.0.0.1:8080/":        "http://127.0.0.1:8080/.well-known/agent-card.json",
		"https://agents.example/echo/":  "https://agents.example/echo/.well-known/agent-card.json",
		"https://agents.example/echo":   "https://agents.example/echo/.well-known/agent-card.json",
		"http://[::1]:9000/a2a//nested": "http://[::1]:9000/a2a/nested/.well-known/agent-card.json",
	}
	for endpoint, want := range tests {
		if got := CardURL(endpoint); got != want {
			t.Errorf("CardURL(%q) = %q, want %q", endpoint, got, want)
		}
	}
}
