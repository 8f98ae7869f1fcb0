package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// card10 is an A2A 1.0 card using every part the data source flattens.
const card10 = `{
  "name": "Planner",
  "description": "Plans trips.",
  "version": "2.1.0",
  "documentationUrl": "https://planner.example.com/docs",
  "supportedInterfaces": [
    {"url": "https://planner.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    {"url": "https://planner.example.com/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0", "tenant": "acme"}
  ],
  "provider": {"organization": "Example Org", "url": "https://example.com"},
  "capabilities": {
    "streaming": true,
    "extensions": [{"uri": "https://example.com/ext/trace/v1", "description": "Traces calls.", "required": true, "params": {"level": "debug"}}]
  },
  "securitySchemes": {
    "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Api-Key"}},
    "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}}
  },
  "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain", "application/json"],
  "skills": [{
    "id": "plan", "name": "Plan", "description": "Plans a trip.", "tags": ["travel"],
    "examples": ["Plan a weekend in Lisbon"], "inputModes": ["text/plain"]
  }]
}`

// card03 is the same agent as an A2A 0.3 card.
const card03 = `{
  "protocolVersion": "0.3.0",
  "name": "Planner",
  "description": "Plans trips.",
  "version": "2.1.0",
  "url": "https://planner.example.com/a2a",
  "preferredTransport": "JSONRPC",
  "capabilities": {"streaming": true},
  "securitySchemes": {"bearer": {"type": "http", "scheme": "Bearer"}},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "plan", "name": "Plan", "description": "Plans a trip.", "tags": ["travel"]}]
}`

// cardMissingNameAndBadSkills has two problems at two paths.
const cardMissingNameAndBadSkills = `{
  "description": "Plans trips.",
  "version": "2.1.0",
  "supportedInterfaces": [{"url": "https://planner.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": "plan"
}`

// cardServer serves a card through respond and counts the requests it got,
// and which of them first answered 200.
type cardServer struct {
	*httptest.Server
	requests    atomic.Int32
	firstServed atomic.Int32
	connections atomic.Int32
}

// statusRecorder remembers the status a handler answered with.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func newCardServer(t *testing.T, tls bool, respond func(w http.ResponseWriter, r *http.Request, attempt int32)) *cardServer {
	t.Helper()
	s := &cardServer{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.requests.Add(1)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		respond(rec, r, n)
		if rec.status == http.StatusOK {
			s.firstServed.CompareAndSwap(0, n)
		}
	})
	s.Server = httptest.NewUnstartedServer(handler)
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.connections.Add(1)
		}
	}
	if tls {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	return s
}

func serveJSON(body string) func(http.ResponseWriter, *http.Request, int32) {
	return func(w http.ResponseWriter, r *http.Request, _ int32) {
		if r.URL.Path != card.WellKnownPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}
}

// cardCheck asserts attribute values of data.a2a_agent_card.test.
func cardCheck(pairs ...string) resource.TestCheckFunc {
	checks := make([]resource.TestCheckFunc, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		checks = append(checks, resource.TestCheckResourceAttr("data.a2a_agent_card.test", pairs[i], pairs[i+1]))
	}
	return resource.ComposeAggregateTestCheckFunc(checks...)
}

func certPEM(s *httptest.Server) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}))
}

// runCardStep reads the data source once with the real terraform binary.
func runCardStep(t *testing.T, config string, expectError string, check resource.TestCheckFunc) {
	t.Helper()
	step := resource.TestStep{Config: config, Check: check}
	if expectError != "" {
		step.ExpectError = regexp.MustCompile(expectError)
	}
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{step},
	})
}

// isolateProviderState keeps the provider's runtime store out of the home
// directory: the data source needs none, but the provider is configured.
func isolateProviderState(t *testing.T) {
	t.Setenv("A2A_STATE_DIR", t.TempDir())
}

func TestAccAgentCardDataSource_fetch(t *testing.T) {
	isolateProviderState(t)
	cases := []struct {
		name        string
		tls         bool
		respond     func(w http.ResponseWriter, r *http.Request, attempt int32)
		settings    func(s *cardServer) string
		path        string
		userinfo    string
		expectError string
		check       resource.TestCheckFunc
		// wantRequests is, for a failing read, how many requests the
		// server got; for a successful one, which request first got the
		// card (terraform reads a data source more than once per step).
		wantRequests int32
		// wantConnections, when set, is how many connections the server
		// accepted: a failed TLS handshake never reaches the handler.
		wantConnections int32
	}{
		{
			name:    "1.0 card, every attribute",
			respond: serveJSON(card10),
			check: cardCheck(
				"spec_version", "1.0",
				"name", "Planner",
				"description", "Plans trips.",
				"version", "2.1.0",
				"documentation_url", "https://planner.example.com/docs",
				"interfaces.#", "2",
				"interfaces.0.url", "https://planner.example.com/a2a",
				"interfaces.0.protocol_binding", "JSONRPC",
				"interfaces.0.protocol_version", "1.0",
				"interfaces.1.protocol_binding", "GRPC",
				"interfaces.1.tenant", "acme",
				"agent_provider.organization", "Example Org",
				"agent_provider.url", "https://example.com",
				"capabilities.streaming", "true",
				"capabilities.push_notifications", "false",
				"capabilities.extended_agent_card", "false",
				"extensions.#", "1",
				"extensions.0.uri", "https://example.com/ext/trace/v1",
				"extensions.0.required", "true",
				"extensions.0.params_json", `{"level":"debug"}`,
				"security_schemes.#", "2",
				"security_schemes.0.name", "bearer",
				"security_schemes.0.type", "http",
				"security_schemes.0.scheme", "Bearer",
				"security_schemes.0.bearer_format", "JWT",
				"security_schemes.1.name", "key",
				"security_schemes.1.type", "apiKey",
				"security_schemes.1.api_key_location", "header",
				"security_schemes.1.api_key_name", "X-Api-Key",
				"default_input_modes.#", "1",
				"default_output_modes.1", "application/json",
				"skills.#", "1",
				"skills.0.id", "plan",
				"skills.0.name", "Plan",
				"skills.0.tags.0", "travel",
				"skills.0.examples.0", "Plan a weekend in Lisbon",
				"skills.0.input_modes.0", "text/plain",
				"raw_json", card10,
				"signature_verified", "false",
				"deviations.#", "0",
			),
			wantRequests: 1,
		},
		{
			// What the official SDK publishes for both versions: the 1.0
			// card reads as ever, and each property the 1.0 schema does not
			// define, such as the 0.3 ones beside, is a deviation at its path.
			name: "1.0 card with properties the version does not define",
			respond: serveJSON(strings.NewReplacer(
				`"name": "Planner",`, `"name": "Planner", "url": "https://planner.example.com/a2a", "protocolVersion": "0.3.0",`,
				`"tags": ["travel"],`, `"tags": ["travel"], "security": [{"bearer": []}],`,
			).Replace(card10)),
			check: cardCheck(
				"spec_version", "1.0",
				"interfaces.#", "2",
				"deviations.#", "3",
				"deviations.0.path", "$.protocolVersion",
				"deviations.1.path", "$.skills[0].security",
				"deviations.2.path", "$.url",
			),
			wantRequests: 1,
		},
		{
			// Properties no version defines, as a card of a later minor
			// version may carry: the card reads as ever, and each is a
			// deviation at its path.
			name: "1.0 card with top-level properties no version defines",
			respond: serveJSON(strings.Replace(card10, `"name": "Planner",`,
				`"name": "Planner", "homepage": "https://planner.example.com", "Extra Field": true,`, 1)),
			check: resource.ComposeAggregateTestCheckFunc(
				cardCheck(
					"spec_version", "1.0",
					"name", "Planner",
					"interfaces.#", "2",
					"skills.#", "1",
					"deviations.#", "2",
					"deviations.0.path", "$.homepage",
					"deviations.1.path", `$["Extra Field"]`,
				),
				resource.TestMatchResourceAttr("data.a2a_agent_card.test", "deviations.0.message", regexp.MustCompile(`^is not defined by A2A 1\.0;`)),
				resource.TestMatchResourceAttr("data.a2a_agent_card.test", "deviations.1.message", regexp.MustCompile(`^is not defined by A2A 1\.0;`)),
			),
			wantRequests: 1,
		},
		{
			name:    "0.3 card",
			respond: serveJSON(card03),
			check: cardCheck(
				"spec_version", "0.3",
				"name", "Planner",
				"interfaces.#", "1",
				"interfaces.0.url", "https://planner.example.com/a2a",
				"interfaces.0.protocol_binding", "JSONRPC",
				"security_schemes.0.type", "http",
				"skills.0.id", "plan",
			),
			wantRequests: 1,
		},
		{
			name: "full card URL is used as is",
			respond: func(w http.ResponseWriter, r *http.Request, _ int32) {
				if r.URL.Path != "/cards/planner/agent-card.json" {
					http.NotFound(w, r)
					return
				}
				_, _ = w.Write([]byte(card10))
			},
			path:         "/cards/planner/agent-card.json",
			check:        cardCheck("name", "Planner"),
			wantRequests: 1,
		},
		{
			name: "retries 503 then succeeds",
			respond: func(w http.ResponseWriter, r *http.Request, attempt int32) {
				if attempt <= 2 {
					http.Error(w, "warming up", http.StatusServiceUnavailable)
					return
				}
				serveJSON(card10)(w, r, attempt)
			},
			settings:     func(*cardServer) string { return "retry {\n attempts = 3\n min_delay_ms = 10\n max_delay_ms = 50\n}" },
			check:        cardCheck("name", "Planner"),
			wantRequests: 3,
		},
		{
			name: "429 Retry-After is capped at max_delay_ms",
			respond: func(w http.ResponseWriter, r *http.Request, attempt int32) {
				if attempt == 1 {
					w.Header().Set("Retry-After", "3600")
					http.Error(w, "slow down", http.StatusTooManyRequests)
					return
				}
				serveJSON(card10)(w, r, attempt)
			},
			settings:     func(*cardServer) string { return "retry {\n attempts = 2\n min_delay_ms = 10\n max_delay_ms = 50\n}" },
			check:        cardCheck("name", "Planner"),
			wantRequests: 2,
		},
		{
			name: "gives up after the attempts",
			respond: func(w http.ResponseWriter, _ *http.Request, _ int32) {
				http.Error(w, "down", http.StatusBadGateway)
			},
			settings:     func(*cardServer) string { return "retry {\n attempts = 2\n min_delay_ms = 10\n max_delay_ms = 10\n}" },
			expectError:  `502 Bad Gateway`,
			wantRequests: 2,
		},
		{
			name:         "a password in the URL is not shown",
			respond:      func(w http.ResponseWriter, r *http.Request, _ int32) { http.NotFound(w, r) },
			userinfo:     "reader:pa55word@",
			expectError:  `http://reader:xxxxx@127\.0\.0\.1:\d+/\.well-known/agent-card\.json answered 404`,
			wantRequests: 1,
		},
		{
			name:         "404 is not retried",
			respond:      func(w http.ResponseWriter, r *http.Request, _ int32) { http.NotFound(w, r) },
			settings:     func(*cardServer) string { return "retry {\n attempts = 5\n min_delay_ms = 10\n}" },
			expectError:  `404 Not Found`,
			wantRequests: 1,
		},
		{
			name: "timeout",
			respond: func(_ http.ResponseWriter, r *http.Request, _ int32) {
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			},
			settings:     func(*cardServer) string { return "request_timeout_ms = 200\nretry {\n attempts = 1\n}" },
			expectError:  `timeout`,
			wantRequests: 1,
		},
		{
			name: "oversized card",
			respond: func(w http.ResponseWriter, _ *http.Request, _ int32) {
				_, _ = w.Write([]byte(`{"name": "` + strings.Repeat("a", card.MaxCardBytes) + `"}`))
			},
			expectError:  fmt.Sprintf(`larger than %d bytes`, card.MaxCardBytes),
			wantRequests: 1,
		},
		{
			name:         "invalid card names every problem",
			respond:      serveJSON(cardMissingNameAndBadSkills),
			expectError:  `(?s)Invalid agent card.*\$\.name.*\$\.skills|(?s)Invalid agent card.*\$\.skills.*\$\.name`,
			wantRequests: 1,
		},
		{
			name: "request headers are sent",
			respond: func(w http.ResponseWriter, r *http.Request, attempt int32) {
				if r.Header.Get("Authorization") != "Bearer s3cret" || r.Header.Get("X-Tenant") != "acme" {
					http.Error(w, "who are you", http.StatusUnauthorized)
					return
				}
				serveJSON(card10)(w, r, attempt)
			},
			settings: func(*cardServer) string {
				return "request_headers = {\n Authorization = \"Bearer s3cret\"\n X-Tenant = \"acme\"\n}"
			},
			check:        cardCheck("name", "Planner"),
			wantRequests: 1,
		},
		{
			name:         "TLS with ca_cert_pem",
			tls:          true,
			respond:      serveJSON(card10),
			settings:     func(s *cardServer) string { return fmt.Sprintf("ca_cert_pem = %q", certPEM(s.Server)) },
			check:        cardCheck("name", "Planner"),
			wantRequests: 1,
		},
		{
			name:            "TLS with an unknown CA fails without retrying",
			tls:             true,
			respond:         serveJSON(card10),
			settings:        func(*cardServer) string { return "retry {\n attempts = 3\n min_delay_ms = 10\n}" },
			expectError:     `certificate`,
			wantConnections: 1,
		},
		{
			name:         "TLS with insecure",
			tls:          true,
			respond:      serveJSON(card10),
			settings:     func(*cardServer) string { return "insecure = true" },
			check:        cardCheck("name", "Planner"),
			wantRequests: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newCardServer(t, tc.tls, tc.respond)
			settings := ""
			if tc.settings != nil {
				settings = tc.settings(srv)
			}
			url := strings.Replace(srv.URL, "://", "://"+tc.userinfo, 1) + tc.path
			config := fmt.Sprintf("data \"a2a_agent_card\" \"test\" {\n url = %q\n %s\n}\n", url, settings)
			check := tc.check
			if check != nil {
				wantID := url
				if tc.path == "" {
					wantID += card.WellKnownPath
				}
				check = resource.ComposeAggregateTestCheckFunc(check, cardCheck("id", wantID, "card_url", wantID))
			}
			runCardStep(t, config, tc.expectError, check)
			if tc.wantConnections != 0 {
				if got := srv.connections.Load(); got != tc.wantConnections {
					t.Errorf("server accepted %d connections, want %d", got, tc.wantConnections)
				}
			} else if tc.expectError != "" {
				if got := srv.requests.Load(); got != tc.wantRequests {
					t.Errorf("server got %d requests, want %d", got, tc.wantRequests)
				}
			} else if got := srv.firstServed.Load(); got != tc.wantRequests {
				t.Errorf("server first served the card on request %d, want %d", got, tc.wantRequests)
			}
		})
	}
}

// hclString quotes s for HCL, escaping template sequences so that Terraform
// passes ${VAR} through as written.
func hclString(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(fmt.Sprintf("%q", s), "${", "$${"), "%{", "%%{")
}

func TestAccAgentCardDataSource_config(t *testing.T) {
	isolateProviderState(t)
	const withPort = `
[agent]
name = "Greeter"
description = "Greets in ${GREETING:-English}."
version = "1.2.3"

[server]
http_port = 18123

[[skills]]
id = "greet"
name = "Greet"
description = "Says hello."
tags = ["greeting"]
examples = ["Hi"]
`
	const withoutPort = `
[agent]
name = "Greeter"
`
	cases := []struct {
		name        string
		config      string
		endpoint    string
		expectError string
		check       resource.TestCheckFunc
	}{
		{
			name:   "derived offline from the config",
			config: withPort,
			check: cardCheck(
				"id", agentconfig.Digest([]byte(withPort)),
				"card_url", "http://127.0.0.1:18123"+card.WellKnownPath,
				"spec_version", "1.0",
				"name", "Greeter",
				"description", "Greets in ${GREETING:-English}.",
				"version", "1.2.3",
				"interfaces.#", "6",
				"interfaces.0.url", "http://127.0.0.1:18123",
				"interfaces.0.protocol_binding", "JSONRPC",
				"interfaces.0.protocol_version", "1.0",
				"interfaces.1.url", "http://127.0.0.1:18123",
				"interfaces.1.protocol_binding", "HTTP+JSON",
				"interfaces.2.url", "127.0.0.1:18123",
				"interfaces.2.protocol_binding", "GRPC",
				"interfaces.3.url", "http://127.0.0.1:18123",
				"interfaces.3.protocol_version", "0.3",
				"skills.#", "1",
				"skills.0.id", "greet",
				"skills.0.description", "Says hello.",
				"skills.0.examples.0", "Hi",
				"signature_verified", "false",
			),
		},
		{
			name:     "endpoint overrides the config",
			config:   withPort,
			endpoint: "https://greeter.example.com/a2a",
			check: cardCheck(
				"card_url", "https://greeter.example.com/a2a"+card.WellKnownPath,
				"interfaces.0.url", "https://greeter.example.com/a2a",
			),
		},
		{
			name:     "endpoint for a config that leaves the port to the runtime",
			config:   withoutPort,
			endpoint: "http://127.0.0.1:9999",
			check:    cardCheck("name", "Greeter", "interfaces.0.url", "http://127.0.0.1:9999"),
		},
		{
			name:        "no endpoint known",
			config:      withoutPort,
			expectError: `Agent endpoint unknown`,
		},
		{
			name:        "invalid config",
			config:      "[agent]\nname = \"Greeter\"\ncolour = \"blue\"\n",
			expectError: `(?s)Invalid agent config.*colour`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			endpoint := ""
			if tc.endpoint != "" {
				endpoint = fmt.Sprintf("endpoint = %q", tc.endpoint)
			}
			config := fmt.Sprintf("data \"a2a_agent_card\" \"test\" {\n config = %s\n %s\n}\n", hclString(tc.config), endpoint)
			runCardStep(t, config, tc.expectError, tc.check)
		})
	}
}

func TestAccAgentCardDataSource_validation(t *testing.T) {
	isolateProviderState(t)
	key := newSigningKey(t)
	cases := []struct {
		name        string
		body        string
		expectError string
	}{
		{"private key as a public key", fmt.Sprintf("url = \"http://127.0.0.1:1\"\nverify_signature {\n public_keys_pem = [%q, %q]\n}",
			key.publicPEM, key.privatePEM), `(?s)public_keys_pem\[1\] is a PRIVATE key; pass the public key`},
		{"neither url nor config", `insecure = true`, `(?s)Exactly one of these attributes must be configured: \[url,config\]`},
		{"both url and config", `url = "http://127.0.0.1:1"` + "\n" + `config = "[agent]"`, `Invalid Attribute Combination`},
		{"url without a scheme", `url = "planner.example.com"`, `Invalid URL`},
		{"url with another scheme", `url = "ftp://planner.example.com"`, `Invalid URL`},
		{"endpoint with url", `url = "http://127.0.0.1:1"` + "\n" + `endpoint = "http://127.0.0.1:2"`, `Invalid Attribute Combination`},
		{"fetch settings with config", `config = "[agent]"` + "\n" + `request_headers = { A = "b" }`, `Invalid Attribute Combination`},
		{"zero attempts", `url = "http://127.0.0.1:1"` + "\nretry {\n attempts = 0\n}", `(?s)attempts.*at least 1`},
		{"max delay below min delay", `url = "http://127.0.0.1:1"` + "\nretry {\n min_delay_ms = 100\n max_delay_ms = 10\n}",
			`(?s)retry.max_delay_ms value must be at least sum of\s+retry.min_delay_ms, got: 10`},
		{"verify_signature without keys", `url = "http://127.0.0.1:1"` + "\nverify_signature {}",
			`(?s)Attribute "verify_signature.public_keys_pem" must be specified when\s+"verify_signature" is specified`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runCardStep(t, fmt.Sprintf("data \"a2a_agent_card\" \"test\" {\n%s\n}\n", tc.body), tc.expectError, nil)
		})
	}
}

// TestAccAgentCardDataSource_headersNeverLogged reads a card with a secret
// header at the most verbose log level and looks for the secret in the log.
func TestAccAgentCardDataSource_headersNeverLogged(t *testing.T) {
	isolateProviderState(t)
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_LOG", "TRACE")
	const secret = "s3cret-token-value"
	srv := newCardServer(t, false, func(w http.ResponseWriter, r *http.Request, attempt int32) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		serveJSON(card10)(w, r, attempt)
	})
	// The secret comes from the environment, as it would in real use, so the
	// test harness's own log of the configuration does not hold it.
	t.Setenv("TF_VAR_token", secret)
	config := fmt.Sprintf("variable \"token\" {\n sensitive = true\n}\n"+
		"data \"a2a_agent_card\" \"test\" {\n url = %q\n request_headers = { Authorization = \"Bearer ${var.token}\" }\n}\n", srv.URL)
	runCardStep(t, config, "", cardCheck("name", "Planner"))

	logged, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logged), "fetching agent card") {
		t.Fatalf("the provider's log did not reach %s; the test cannot tell whether headers are logged", logPath)
	}
	if i := strings.Index(string(logged), secret); i >= 0 {
		t.Logf("%s", logged[max(0, i-2000):min(len(logged), i+300)])
		t.Errorf("a request header value appears in the log %s", logPath)
	}
}

// signingKey is an EC P-256 key made for one test; no key is kept on disk.
type signingKey struct {
	privatePEM, publicPEM []byte
}

func newSigningKey(t *testing.T) signingKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	private, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	public, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{
		privatePEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: private}),
		publicPEM:  pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: public}),
	}
}

// signedCard10 is card10 signed by key under kid, as an agent publishes it.
func signedCard10(t *testing.T, key signingKey, kid string) string {
	t.Helper()
	parsed, err := card.Parse([]byte(card10))
	if err != nil {
		t.Fatal(err)
	}
	if err := card.Sign(parsed.Card, key.privatePEM, kid, card.Strict10); err != nil {
		t.Fatal(err)
	}
	raw, err := card.MarshalCard(parsed.Card, card.Strict10)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestAccAgentCardDataSource_signature(t *testing.T) {
	isolateProviderState(t)
	signer, stranger := newSigningKey(t), newSigningKey(t)
	signed := signedCard10(t, signer, "planner-2026")
	tampered := strings.Replace(signed, "Plans trips.", "Plans trips and books them on my card.", 1)
	if tampered == signed {
		t.Fatal("the tampering did not change the card")
	}
	cases := []struct {
		name   string
		served string
		keys   []signingKey
		// keysAtApply passes the keys through a resource, so that they are
		// unknown when the configuration is validated and planned.
		keysAtApply bool
		expectError string
		check       resource.TestCheckFunc
	}{
		{
			name:   "signed card verifies",
			served: signed,
			keys:   []signingKey{signer},
			check:  cardCheck("signature_verified", "true", "signature_key_id", "planner-2026", "name", "Planner"),
		},
		{
			name:   "any of the keys may verify",
			served: signed,
			keys:   []signingKey{stranger, signer},
			check:  cardCheck("signature_verified", "true", "signature_key_id", "planner-2026"),
		},
		{
			name:        "tampered card is rejected",
			served:      tampered,
			keys:        []signingKey{signer},
			expectError: `Agent card signature not verified`,
		},
		{
			name:        "card signed by another key is rejected",
			served:      signed,
			keys:        []signingKey{stranger},
			expectError: `Agent card signature not verified`,
		},
		{
			name:        "unsigned card is rejected",
			served:      card10,
			keys:        []signingKey{signer},
			expectError: `(?s)Agent card signature not verified.*not signed`,
		},
		{
			name:        "keys known only at apply",
			served:      signed,
			keys:        []signingKey{signer},
			keysAtApply: true,
			check:       cardCheck("signature_verified", "true"),
		},
		{
			// Go would read the second spelling in place of the signed
			// one, which the signature does not cover as it holds a
			// default value.
			name:        "a property spelled the signed one's way but for case is refused",
			served:      strings.Replace(signed, `"protocolBinding": "JSONRPC",`, `"protocolBinding": "JSONRPC", "protocolbinding": "",`, 1),
			keys:        []signingKey{signer},
			expectError: `(?s)supportedInterfaces\[0\]\.protocolbinding differs from the property "protocolBinding" only in case`,
		},
		{
			name:        "a property given twice is refused",
			served:      strings.Replace(signed, `"name": "Planner",`, `"name": "Impostor", "name": "Planner",`, 1),
			keys:        []signingKey{signer},
			expectError: `\$\.name is given twice`,
		},
		{
			name:   "signature is not checked unless asked",
			served: tampered,
			check:  cardCheck("signature_verified", "false", "name", "Planner"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newCardServer(t, false, serveJSON(tc.served))
			verify, keysResource := "", ""
			if len(tc.keys) > 0 {
				pems := make([]string, len(tc.keys))
				for i, k := range tc.keys {
					pems[i] = fmt.Sprintf("%q", k.publicPEM)
				}
				keys := "[" + strings.Join(pems, ", ") + "]"
				if tc.keysAtApply {
					keysResource = fmt.Sprintf("resource \"terraform_data\" \"keys\" {\n input = %s\n}\n", keys)
					keys = "terraform_data.keys.output"
				}
				verify = fmt.Sprintf("verify_signature {\n public_keys_pem = %s\n}", keys)
			}
			config := fmt.Sprintf("%sdata \"a2a_agent_card\" \"test\" {\n url = %q\n %s\n}\n", keysResource, srv.URL, verify)
			runCardStep(t, config, tc.expectError, tc.check)
		})
	}
}

// TestAccAgentCardDataSource_offlineMatchesHost runs an agent and checks
// that the card derived offline from its config is the card it serves.
func TestAccAgentCardDataSource_offlineMatchesHost(t *testing.T) {
	isolateProviderState(t)
	agentConfig := fmt.Sprintf(`
[agent]
name = "Card Match"
description = "Checks that offline cards match served ones."
version = "0.1.0"

[agent.provider]
organization = "Example Org"
url = "https://example.com"

[server]
http_port = %d

[[skills]]
id = "echo"
description = "Echoes."
tags = ["test"]
`, freeLoopbackPort(t))
	config := fmt.Sprintf(`
resource "a2a_agent" "test" {
  config = %s
}

data "a2a_agent_card" "served" {
  url = a2a_agent.test.card_url
}

data "a2a_agent_card" "offline" {
  config = a2a_agent.test.config
}
`, hclString(agentConfig))
	var pairs []resource.TestCheckFunc
	for _, attr := range []string{
		"card_url", "spec_version", "name", "description", "version", "interfaces.#", "interfaces.0.url",
		"interfaces.0.protocol_binding", "interfaces.0.protocol_version", "agent_provider.organization",
		"capabilities.streaming", "capabilities.push_notifications", "extensions.#", "extensions.0.uri",
		"extensions.0.params_json", "default_input_modes.#", "skills.#", "skills.0.id", "skills.0.name",
		"skills.0.description", "skills.0.tags.0", "security_schemes.#", "raw_json",
	} {
		pairs = append(pairs, resource.TestCheckResourceAttrPair("data.a2a_agent_card.served", attr, "data.a2a_agent_card.offline", attr))
	}
	pairs = append(pairs, resource.TestCheckResourceAttr("data.a2a_agent_card.served", "name", "Card Match"))
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: config, Check: resource.ComposeAggregateTestCheckFunc(pairs...)}},
	})
}

// TestAccAgentCardDataSource_signedHostCard reads the card an agent host
// signs, strictly 1.0 by default and, with [card] v03_fields, carrying the
// fields 0.3 clients read next to the 1.0 ones, and verifies its signature;
// the 1.0 attributes are those of the card derived offline, as for an
// unsigned card, and the 0.3 fields are the card's only deviations.
func TestAccAgentCardDataSource_signedHostCard(t *testing.T) {
	isolateProviderState(t)
	key := newSigningKey(t)
	t.Setenv("SIGNED_HOST_CARD_KEY", string(key.privatePEM))
	for _, v03Fields := range []bool{false, true} {
		t.Run(fmt.Sprintf("v03_fields=%t", v03Fields), func(t *testing.T) {
			agentConfig := fmt.Sprintf("[agent]\nname = \"Signed Host\"\n[server]\nhttp_port = %d\n"+
				"[card]\nsigning_key = \"${SIGNED_HOST_CARD_KEY}\"\nv03_fields = %t\n", freeLoopbackPort(t), v03Fields)
			config := fmt.Sprintf(`
resource "a2a_env_allowlist" "test" {
  name      = "signed-host-card"
  variables = ["SIGNED_HOST_CARD_KEY"]
}

resource "a2a_agent" "test" {
  config        = %s
  env_allowlist = a2a_env_allowlist.test.name
}

data "a2a_agent_card" "served" {
  url = a2a_agent.test.card_url
  verify_signature {
    public_keys_pem = [%q]
  }
}

data "a2a_agent_card" "offline" {
  config = a2a_agent.test.config
}
`, hclString(agentConfig), key.publicPEM)
			served := "data.a2a_agent_card.served"
			checks := []resource.TestCheckFunc{
				resource.TestCheckResourceAttr(served, "signature_verified", "true"),
				resource.TestCheckResourceAttr(served, "spec_version", "1.0"),
				resource.TestCheckResourceAttr(served, "interfaces.#", "6"),
				resource.TestCheckResourceAttr(served, "interfaces.0.protocol_version", "1.0"),
				resource.TestCheckResourceAttr(served, "interfaces.2.protocol_binding", "GRPC"),
				resource.TestCheckResourceAttr(served, "interfaces.3.protocol_version", "0.3"),
				resource.TestCheckResourceAttrWith(served, "raw_json", func(raw string) error {
					var doc map[string]any
					if err := json.Unmarshal([]byte(raw), &doc); err != nil {
						return err
					}
					if doc["signatures"] == nil {
						return fmt.Errorf("served card is not signed: %s", raw)
					}
					if with03 := doc["url"] != nil && doc["preferredTransport"] == "JSONRPC"; with03 != v03Fields {
						return fmt.Errorf("served card carries the 0.3 fields: %v, want %v: %s", with03, v03Fields, raw)
					}
					return nil
				}),
			}
			if v03Fields {
				checks = append(checks, resource.TestCheckResourceAttr(served, "deviations.#", "4"),
					resource.TestCheckResourceAttr(served, "deviations.3.path", "$.url"))
			} else {
				checks = append(checks, resource.TestCheckResourceAttr(served, "deviations.#", "0"))
			}
			for _, attr := range []string{"name", "interfaces.0.url", "interfaces.2.url", "interfaces.5.url", "skills.#", "capabilities.streaming"} {
				checks = append(checks, resource.TestCheckResourceAttrPair(served, attr, "data.a2a_agent_card.offline", attr))
			}
			unitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: config, Check: resource.ComposeAggregateTestCheckFunc(checks...)}},
			})
		})
	}
}

// freeLoopbackPort returns a port nothing listens on right now.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}
