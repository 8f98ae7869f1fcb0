package agenthost

import "testing"

// TestRedactsExpandedValues: what a variable expanded to reads as its
// reference, but for the variables the runtime gives every agent, which
// say where it listens; a write-only value is hidden whatever its name.
func TestRedactsExpandedValues(t *testing.T) {
	t.Setenv("API_KEY", "key-from-env")
	t.Setenv("HOST", "127.0.0.1")
	t.Setenv("PORT", "18080")
	t.Setenv("A2A_ADVERTISED_URL", "http://agent.example:18080")
	recorder := &expansionRecorder{preferred: map[string]string{"TOKEN": "token-written", "PORT": "port-written"}}
	for _, name := range []string{"API_KEY", "HOST", "A2A_ADVERTISED_URL", "TOKEN", "PORT"} {
		if _, ok := recorder.lookup(name); !ok {
			t.Fatalf("lookup(%s) found nothing", name)
		}
	}
	tests := []struct{ in, want string }{
		{"key=key-from-env", "key=${API_KEY}"},
		{"listen=127.0.0.1:18080 endpoint=http://agent.example:18080", "listen=127.0.0.1:18080 endpoint=http://agent.example:18080"},
		{"token=token-written", "token=${TOKEN}"},
		{"port=port-written", "port=${PORT}"},
	}
	redact := recorder.redactor()
	for _, tt := range tests {
		if got := redact.String(tt.in); got != tt.want {
			t.Errorf("redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
