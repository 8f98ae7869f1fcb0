package agenthost

import (
	"bufio"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestRequestLogEscapesWhatClientsChoose sends requests whose method and
// path hold shell syntax, quotes and line breaks, as raw HTTP so that no
// client library cleans them up first: the log line shows each escaped, so
// that no one who reads, greps or pastes the log runs or trusts them.
func TestRequestLogEscapesWhatClientsChoose(t *testing.T) {
	log := &syncBuffer{}
	h := startInProcess(t, parseConfig(t, echoConfig), Options{Log: log})
	addr := strings.TrimPrefix(h.Endpoint(), "http://")
	tests := []struct {
		name, method, target string
		// wantMethod and wantPath are the fields as logged.
		wantMethod, wantPath string
	}{
		{"command substitution", "GET", "/$(touch${IFS}/tmp/x)", "GET", "/%24%28touch%24%7BIFS%7D/tmp/x%29"},
		{"backticks, encoded", "GET", "/%60id%60", "GET", "/%60id%60"},
		{"forged field after a line break", "GET", "/a%0Amsg=forged%20status=200", "GET", "/a%0Amsg%3Dforged%20status%3D200"},
		{"quotes", "GET", `/%22x%27`, "GET", "/%22x%27"},
		{"a method that is a command", "`id`", "/", "%60id%60", "/"},
		{"plain", "GET", "/.well-known/agent-card.json", "GET", "/.well-known/agent-card.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(log.String())
			rawRequest(t, addr, tt.method, tt.target)
			var line string
			for deadline := time.Now().Add(waitLimit); line == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				line = firstLineWith(log.String()[before:], "msg=request")
			}
			if line == "" {
				t.Fatalf("no request line logged:\n%s", log.String()[before:])
			}
			if got := logField(line, "method"); got != tt.wantMethod {
				t.Errorf("method=%s, want %s, in %q", got, tt.wantMethod, line)
			}
			if got := logField(line, "path"); got != tt.wantPath {
				t.Errorf("path=%s, want %s, in %q", got, tt.wantPath, line)
			}
			for _, bad := range []string{"$(", "`", "msg=forged", `\"`, "'"} {
				if strings.Contains(line, bad) {
					t.Errorf("the log line holds %q as the client sent it: %q", bad, line)
				}
			}
		})
	}
}

// rawRequest sends one HTTP/1.1 request line as given and reads the status.
func rawRequest(t *testing.T, addr, method, target string) {
	t.Helper()
	conn, err := (&net.Dialer{Timeout: waitLimit}).DialContext(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(waitLimit))
	if _, err := conn.Write([]byte(method + " " + target + " HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	_ = resp.Body.Close()
}

// TestEscapeForLogDecodes checks that an escaped field decodes back to what
// the client sent, so the log loses nothing.
func TestEscapeForLogDecodes(t *testing.T) {
	for _, s := range []string{"/", "/a b/%/ü/\x00\n\"'`$;&|<>*?=", "/.well-known/agent-card.json"} {
		got, err := url.PathUnescape(escapeForLog(s))
		if err != nil || got != s {
			t.Errorf("escapeForLog(%q) = %q, which decodes to %q, %v", s, escapeForLog(s), got, err)
		}
	}
}
