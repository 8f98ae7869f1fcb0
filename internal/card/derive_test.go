package card

import (
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/cardschema"
)

func mustConfig(t testing.TB, toml string) *agentconfig.Config {
	t.Helper()
	cfg, err := agentconfig.Parse([]byte(toml))
	if err != nil {
		t.Fatalf("parse config: %v", err)
	}
	return cfg
}

const fullConfig = `
[agent]
name = "Support Desk"
description = "Answers questions about orders."
version = "1.4.0"
documentation_url = "https://docs.example.com/support-desk"
[agent.provider]
organization = "Example Retail"
url = "https://example.com"

[server]
host = "127.0.0.1"
http_port = 8731

[auth]
bearer_token = "s3cret-token"

[[skills]]
id = "order-status"
name = "Order status"
description = "Looks up where an order is."
tags = ["orders", "tracking"]
examples = ["Where is order 1234?"]
input_modes = ["text/plain", "application/json"]
output_modes = ["application/json"]

[[skills]]
id = "returns"
`

func TestDeriveValidatesAgainstSchemaAndProto(t *testing.T) {
	v10, v03 := cardSchemas(t)
	tests := []struct {
		name     string
		config   string
		endpoint string
		check    func(t *testing.T, c *a2a.AgentCard)
	}{
		{
			name:     "minimal config",
			config:   "[agent]\nname = \"Echo\"\n",
			endpoint: "http://127.0.0.1:9000",
			check: func(t *testing.T, c *a2a.AgentCard) {
				if c.Description != "Echo" || c.Version != DefaultVersion {
					t.Errorf("description, version = %q, %q; want the name and %q", c.Description, c.Version, DefaultVersion)
				}
				if len(c.Skills) != 1 || c.Skills[0].ID != "echo" || !slices.Equal(c.Skills[0].Tags, []string{"echo"}) {
					t.Errorf("skills = %+v; want one skill named after the agent", c.Skills)
				}
				if c.SecuritySchemes != nil || c.SecurityRequirements != nil || c.Provider != nil {
					t.Errorf("card claims security or a provider the config does not name: %+v", c)
				}
			},
		},
		{
			name:     "full config",
			config:   fullConfig,
			endpoint: "https://support.example.com/a2a",
			check: func(t *testing.T, c *a2a.AgentCard) {
				if c.Provider == nil || c.Provider.Org != "Example Retail" || c.DocumentationURL != "https://docs.example.com/support-desk" {
					t.Errorf("provider/documentation not carried over: %+v %q", c.Provider, c.DocumentationURL)
				}
				order, returns := c.Skills[0], c.Skills[1]
				if !slices.Equal(order.InputModes, []string{"text/plain", "application/json"}) || !slices.Equal(order.Examples, []string{"Where is order 1234?"}) {
					t.Errorf("order-status skill = %+v", order)
				}
				if returns.Name != "returns" || returns.Description != "Answers questions about orders." || !slices.Equal(returns.Tags, []string{"returns"}) {
					t.Errorf("returns skill defaults = %+v", returns)
				}
				if _, ok := c.SecuritySchemes[BearerSchemeName].(a2a.HTTPAuthSecurityScheme); !ok {
					t.Errorf("security schemes = %+v; want an HTTP bearer scheme", c.SecuritySchemes)
				}
				if len(c.SecurityRequirements) != 1 {
					t.Errorf("security requirements = %+v; want the bearer scheme required", c.SecurityRequirements)
				}
			},
		},
		{
			name: "jwt auth",
			config: "[agent]\nname = \"Guarded\"\n[auth.jwt]\nissuer = \"https://idp.example.com/\"\naudiences = [\"agents\"]\n" +
				"jwks_url = \"https://idp.example.com/jwks.json\"\nrequired_scopes = [\"agents:call\"]\n",
			endpoint: "https://guarded.example.com/a2a",
			check: func(t *testing.T, c *a2a.AgentCard) {
				s, ok := c.SecuritySchemes[JWTSchemeName].(a2a.HTTPAuthSecurityScheme)
				if !ok || s.Scheme != "Bearer" || s.BearerFormat != "JWT" || !strings.Contains(s.Description, "https://idp.example.com/") ||
					!strings.Contains(s.Description, "agents:call") {
					t.Errorf("security schemes = %+v; want an HTTP bearer scheme of format JWT naming the issuer and scopes", c.SecuritySchemes)
				}
				if len(c.SecurityRequirements) != 1 {
					t.Errorf("security requirements = %+v; want the jwt scheme required", c.SecurityRequirements)
				}
			},
		},
		{
			name:     "llm handler without skills, IPv6 endpoint",
			config:   "[agent]\nname = \"Writer\"\ndescription = \"Drafts text.\"\n[handler]\ntype = \"llm\"\n[handler.llm]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n",
			endpoint: "http://[::1]:9001",
			check: func(t *testing.T, c *a2a.AgentCard) {
				if got := c.Skills[0]; got.ID != "writer" || got.Description != "Drafts text." || !slices.Equal(got.Tags, []string{"llm"}) {
					t.Errorf("default skill = %+v", got)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustConfig(t, tt.config)
			c, err := Derive(cfg, tt.endpoint)
			if err != nil {
				t.Fatalf("Derive: %v", err)
			}
			iface := c.SupportedInterfaces[0]
			if iface.URL != tt.endpoint || iface.ProtocolBinding != a2a.TransportProtocolJSONRPC || iface.ProtocolVersion != "1.0" {
				t.Errorf("interface = %+v", iface)
			}
			if !c.Capabilities.Streaming || c.Capabilities.PushNotifications || c.Capabilities.ExtendedAgentCard {
				t.Errorf("capabilities = %+v; want streaming only", c.Capabilities)
			}
			ext := c.Capabilities.Extensions
			if len(ext) != 1 || ext[0].URI != ProvenanceExtensionURI || ext[0].Params["configSha256"] != cfg.SHA256() {
				t.Errorf("extensions = %+v; want provenance with the config digest", ext)
			}
			tt.check(t, c)

			// By default the card is strictly 1.0; with the 0.3 fields
			// it is a 0.3 card as well, and a 1.0 card without them.
			for _, enc := range []Encoding{Strict10, With03Fields} {
				raw, err := MarshalCard(c, enc)
				if err != nil {
					t.Fatalf("MarshalCard: %v", err)
				}
				if strings.Contains(string(raw), "s3cret-token") {
					t.Fatal("card carries the bearer token")
				}
				if enc == Strict10 {
					cardschema.ValidateStrict10(t, raw)
				} else {
					validateSchema(t, v03, raw)
					validateSchema(t, v10, only10(t, raw))
				}
				parsed, err := Parse(raw)
				if err != nil {
					t.Fatalf("derived card fails strict parsing: %v", err)
				}
				if parsed.SpecVersion != SpecVersion10 || parsed.Card.Name != c.Name || len(parsed.Card.Skills) != len(c.Skills) {
					t.Errorf("parsed back = %s %+v", parsed.SpecVersion, parsed.Card)
				}
				if enc == Strict10 && len(parsed.Deviations) > 0 {
					t.Errorf("strict card parses with deviations %v", parsed.Deviations)
				}
			}
		})
	}
}

func TestDeriveTellsConfigsApart(t *testing.T) {
	a := mustConfig(t, "[agent]\nname = \"Twin\"\nversion = \"1\"\n")
	b := mustConfig(t, "[agent]\nname = \"Twin\"\nversion = \"1\"\n[handler]\ntype = \"echo\"\n")
	ca, err := Derive(a, "http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	cb, err := Derive(b, "http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	da, db := ca.Capabilities.Extensions[0].Params["configSha256"], cb.Capabilities.Extensions[0].Params["configSha256"]
	if da == db {
		t.Errorf("two different configs give the same provenance digest %v", da)
	}
}

func TestDeriveRefuses(t *testing.T) {
	tests := []struct {
		name     string
		config   string
		endpoint string
		want     string
	}{
		{"no endpoint", "[agent]\nname = \"A\"\n", "", "server.advertised_url or server.http_port"},
		{"relative endpoint", "[agent]\nname = \"A\"\n", "/a2a", "not an absolute http(s) URL"},
		{"ftp endpoint", "[agent]\nname = \"A\"\n", "ftp://example.com", "not an absolute http(s) URL"},
		// Parse refuses a provider written without a url; one whose url
		// comes from an unset variable is found missing only at start.
		{"provider url expands to nothing", "[agent]\nname = \"A\"\n[agent.provider]\norganization = \"Org\"\nurl = \"${CARD_TEST_UNSET_URL:-}\"\n", "http://127.0.0.1:1", "[agent.provider] needs both organization and url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustConfig(t, tt.config)
			if err := cfg.Expand(func(string) (string, bool) { return "", false }); err != nil {
				t.Fatal(err)
			}
			_, err := Derive(cfg, tt.endpoint)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Derive error = %v; want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestEndpointFor(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"advertised url wins", "[agent]\nname = \"A\"\n[server]\nhttp_port = 80\nadvertised_url = \"https://a.example.com/rpc\"\n", "https://a.example.com/rpc"},
		{"default host", "[agent]\nname = \"A\"\n[server]\nhttp_port = 8080\n", "http://127.0.0.1:8080"},
		{"ipv6 host", "[agent]\nname = \"A\"\n[server]\nhost = \"::1\"\nhttp_port = 8080\n", "http://[::1]:8080"},
		{"no port yet", "[agent]\nname = \"A\"\n", ""},
		{"every ipv4 address reached over loopback", "[agent]\nname = \"A\"\n[server]\nhost = \"0.0.0.0\"\nhttp_port = 8080\n", "http://127.0.0.1:8080"},
		{"every ipv6 address reached over loopback", "[agent]\nname = \"A\"\n[server]\nhost = \"::\"\nhttp_port = 8080\n", "http://[::1]:8080"},
		{"advertised url wins over every address", "[agent]\nname = \"A\"\n[server]\nhost = \"0.0.0.0\"\nhttp_port = 8080\nadvertised_url = \"https://a.example.com/\"\n", "https://a.example.com/"},
		{"named host kept", "[agent]\nname = \"A\"\n[server]\nhost = \"agents.internal\"\nhttp_port = 8080\n", "http://agents.internal:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EndpointFor(mustConfig(t, tt.config)); got != tt.want {
				t.Errorf("EndpointFor = %q; want %q", got, tt.want)
			}
		})
	}
}
