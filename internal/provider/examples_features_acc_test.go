package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// jwtCallersOnly runs the jwt-auth example's command as its header says:
// with the sample key set every call is refused; with the key set of an
// identity provider (here, one the test plays) written in its place, a
// token it issued is let in, and one without the scope the config
// requires is not; a message for the refund skill needs its scope too.
func jwtCallersOnly(r *exampleRun) {
	needCurl(r.t)
	send := r.output("send_message_curl")
	if out := r.shell(send, "TOKEN=not-a-token"); !strings.Contains(out, "HTTP 401") {
		r.t.Errorf("the agent answered a call without a valid token with %s, want HTTP 401", out)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		r.t.Fatal(err)
	}
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "idp-1", Algorithm: "ES256", Use: "sig"}}})
	if err != nil {
		r.t.Fatal(err)
	}
	main, err := os.ReadFile(filepath.Join(r.dir, "main.tf"))
	if err != nil {
		r.t.Fatal(err)
	}
	sample := regexp.MustCompile(`(?m)^(\s*jwks\s*=\s*)'[^']*'$`)
	if !sample.Match(main) {
		r.t.Fatal("the example's main.tf holds no jwks = '...' line for its key set")
	}
	r.write("main.tf", sample.ReplaceAllString(string(main), "${1}'"+string(set)+"'"))
	r.terraform("apply", "-auto-approve", "-input=false")
	issue := func(scope string) string {
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader(jose.HeaderKey("kid"), "idp-1"))
		if err != nil {
			r.t.Fatal(err)
		}
		claims := jwt.Claims{Issuer: "https://idp.example.com/", Audience: jwt.Audience{"billing-agents"},
			Subject: "finance-bot", Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}
		token, err := jwt.Signed(signer).Claims(claims).Claims(map[string]any{"scope": scope}).Serialize()
		if err != nil {
			r.t.Fatal(err)
		}
		return token
	}
	if out := r.shell(send, "TOKEN="+issue("agents:call")); !strings.Contains(out, "Invoice order 42") || !strings.Contains(out, "TASK_STATE_COMPLETED") {
		r.t.Errorf("the agent answered a token of its identity provider with %s, want a completed task echoing the message", out)
	}
	if out := r.shell(send, "TOKEN="+issue("profile")); !strings.Contains(out, "HTTP 403") {
		r.t.Errorf("the agent answered a token without the scope agents:call with %s, want HTTP 403", out)
	}
	refund := r.output("refund_curl")
	if out := r.shell(refund, "TOKEN="+issue("agents:call")); !strings.Contains(out, "-31403") || !strings.Contains(out, "billing:refund") {
		r.t.Errorf("the agent answered a message for the refund skill, from a token without billing:refund, with %s; want refused (-31403) naming the scope", out)
	}
	if out := r.shell(refund, "TOKEN="+issue("agents:call billing:refund")); !strings.Contains(out, "Refund order 42") || !strings.Contains(out, "TASK_STATE_COMPLETED") {
		r.t.Errorf("the agent answered a message for the refund skill, from a token with billing:refund, with %s; want a completed task", out)
	}
}

// metricsPort moves the telemetry example's Prometheus endpoint to a free
// port, where the example's own may be taken on a shared machine.
func metricsPort(t *testing.T, dir string) []string {
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	path := filepath.Join(dir, "main.tf")
	main, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const exampleListen = "127.0.0.1:9464"
	if strings.Count(string(main), exampleListen) != 2 {
		t.Fatalf("the telemetry example names %s %d times, want twice (its config and its output)", exampleListen, strings.Count(string(main), exampleListen))
	}
	writeFile(t, path, strings.ReplaceAll(string(main), exampleListen, addr))
	return nil
}

// metricsScraped sends the telemetry example's agent a message, as its
// header says, and reads the call back from its Prometheus endpoint.
func metricsScraped(r *exampleRun) {
	needCurl(r.t)
	if out := r.shell(r.output("send_message_curl")); !strings.Contains(out, "TASK_STATE_COMPLETED") {
		r.t.Fatalf("the agent answered %s, want a completed task", out)
	}
	families := scrape(r.t, r.output("metrics_url"))
	calls, ok := families["a2a_server_calls_total"]
	if !ok {
		r.t.Fatalf("the agent's /metrics has no a2a_server_calls_total; it has %d families", len(families))
	}
	var sent float64
	for _, m := range calls.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["a2a_method"] == "SendMessage" && labels["a2a_binding"] == "JSONRPC" {
			sent += m.GetCounter().GetValue()
		}
	}
	if sent != 1 {
		r.t.Errorf("a2a_server_calls_total counts %v SendMessage calls over JSON-RPC, want the one the example sent", sent)
	}
}

// scrape reads a Prometheus text endpoint as Prometheus would.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("%s is not Prometheus text: %v", url, err)
	}
	return families
}
