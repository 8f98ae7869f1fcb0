package container

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestHostNotAnEngine points the adapter at web servers that answer HTML,
// as a mistyped port does: New says the address is no engine API, naming
// it and what it answered, instead of reading a 404 as a missing container
// or quoting the page.
func TestHostNotAnEngine(t *testing.T) {
	const page = "<!doctype html><html><body><h1>Welcome to the intranet</h1></body></html>"
	dir := statedirtest.Open(t, t.TempDir())
	tests := []struct {
		name   string
		status int
		want   []string
	}{
		{name: "not found", status: http.StatusNotFound, want: []string{"GET /_ping answered 404 Not Found", "text/html"}},
		{name: "ok to everything", status: http.StatusOK, want: []string{"HEAD /_ping answered 200 OK", "text/html"}},
		{name: "login required", status: http.StatusUnauthorized, want: []string{"GET /_ping answered 401 Unauthorized", "text/html"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(page))
			}))
			t.Cleanup(srv.Close)
			host := "tcp://" + srv.Listener.Addr().String()
			t.Setenv("DOCKER_HOST", "")
			rt, err := New(testContext(t), Options{Host: host, StateDir: dir})
			if err == nil {
				_ = rt.Close()
				t.Fatalf("New against a web server at %s succeeded", host)
			}
			msg := err.Error()
			want := append([]string{host, "provider's container host", "is not a Docker or Podman engine API"}, tt.want...)
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			for _, unwanted := range []string{"no container for the agent", "apply again", "Welcome to the intranet"} {
				if strings.Contains(msg, unwanted) {
					t.Errorf("error %q says %q", msg, unwanted)
				}
			}
			if !agentruntime.IsKind(err, agentruntime.KindBackend) {
				t.Errorf("error %v is not a backend error", err)
			}
		})
	}
}
