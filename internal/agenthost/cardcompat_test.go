package agenthost

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"testing"

	v03 "github.com/a2aproject/a2a-go/a2a"
	v03client "github.com/a2aproject/a2a-go/a2aclient"
	v03card "github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// legacyCardPath is where clients before 0.3 looked for the card.
const legacyCardPath = "/.well-known/agent.json"

// compatHost is a running host and what a client needs to call it.
type compatHost struct {
	name  string
	host  *Host
	token string // the bearer token, if the agent needs one
	pub   []byte // the public key of the card's signature, if it is signed
	// sdkReadsCard tells whether the 1.0 SDK's own card parser reads the
	// card. It reads security requirement scopes as bare arrays, not as the
	// proto's StringList objects ({"list": [...]}) the card is written in,
	// so it rejects the card of an agent with a bearer token.
	sdkReadsCard bool
}

// compatHosts starts the hosts a client of either version must reach from
// the card alone: an open agent, one behind a bearer token (whose card
// carries a security scheme, which 0.3 and 1.0 write differently), and one
// that signs its card; with v03Fields, each publishes the 0.3 fields too.
func compatHosts(t *testing.T, v03Fields bool) []compatHost {
	t.Helper()
	const token = "c0mpat-t0ken"
	t.Setenv("AGENT_TOKEN", token)
	keyPEM, pubPEM := signingKey(t)
	t.Setenv("CARD_SIGNING_KEY", string(keyPEM))
	cardTable := fmt.Sprintf("\n[card]\nv03_fields = %t\n", v03Fields)
	signed := cardTable + "signing_key = \"${CARD_SIGNING_KEY}\"\n"
	return []compatHost{
		{name: "open", host: startInProcess(t, parseConfig(t, echoConfig+cardTable), Options{}), sdkReadsCard: true},
		{name: "bearer", host: startInProcess(t, parseConfig(t, guardedConfig+cardTable), Options{}), token: token},
		{name: "signed", host: startInProcess(t, parseConfig(t, echoConfig+signed), Options{}), pub: pubPEM, sdkReadsCard: true},
	}
}

func signingKey(t *testing.T) (private, public []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
}

// TestCardServesBothVersions covers discovery (sections 8.2, 8.3) for
// clients of 1.0 and of 0.3: each resolves the card at the well-known path,
// picks the endpoint from it as its version prescribes, and is answered
// there. The 0.3 client is the 0.3 release of the official SDK, which reads
// only url, preferredTransport and additionalInterfaces, so it finds the
// agent only in a card with the 0.3 fields ([card] v03_fields); the 1.0
// SDK's 0.3 compatibility client, which reads supportedInterfaces first,
// finds it in the strict 1.0 card too. The host serves JSON-RPC only, so
// there is no REST to try.
func TestCardServesBothVersions(t *testing.T) {
	for _, v03Fields := range []bool{false, true} {
		t.Run(fmt.Sprintf("v03_fields=%t", v03Fields), func(t *testing.T) {
			for _, tc := range compatHosts(t, v03Fields) {
				testDiscovery(t, tc, v03Fields)
			}
		})
	}
}

func testDiscovery(t *testing.T, tc compatHost, v03Fields bool) {
	h := tc.host
	t.Run(tc.name, func(t *testing.T) {
		if !v03Fields {
			t.Run("no 0.3 fields", func(t *testing.T) {
				var doc map[string]any
				if err := json.Unmarshal(getCard(t, h.CardURL()), &doc); err != nil {
					t.Fatal(err)
				}
				for _, field := range []string{"url", "preferredTransport", "protocolVersion", "additionalInterfaces", "security"} {
					if _, ok := doc[field]; ok {
						t.Errorf("the strict 1.0 card carries the 0.3 field %s", field)
					}
				}
			})
			if tc.pub != nil {
				t.Run("signed", func(t *testing.T) {
					if _, err := card.Verify(getCard(t, h.CardURL()), [][]byte{tc.pub}); err != nil {
						t.Errorf("served card does not verify: %v", err)
					}
				})
			}
		}
		if v03Fields {
			t.Run("0.3 SDK", func(t *testing.T) {
				for _, path := range []string{card.WellKnownPath, legacyCardPath} {
					served, err := v03card.NewResolver(http.DefaultClient).Resolve(ctxFor(t), h.Endpoint(), v03card.WithPath(path))
					if err != nil {
						t.Fatalf("0.3 resolver at %s: %v", path, err)
					}
					if served.URL != h.Endpoint() || served.PreferredTransport != v03.TransportProtocolJSONRPC || served.ProtocolVersion == "" {
						t.Errorf("card at %s reads to 0.3 as url %q, transport %q, version %q; want JSON-RPC at %s",
							path, served.URL, served.PreferredTransport, served.ProtocolVersion, h.Endpoint())
					}
					var opts []v03client.FactoryOption
					if tc.token != "" {
						if _, ok := served.SecuritySchemes[card.BearerSchemeName].(v03.HTTPAuthSecurityScheme); !ok || len(served.Security) != 1 {
							t.Errorf("0.3 reads the security of the card as %+v / %+v, want the bearer scheme required", served.SecuritySchemes, served.Security)
						}
						opts = append(opts, v03client.WithInterceptors(v03client.NewStaticCallMetaInjector(
							v03client.CallMeta{"Authorization": {"Bearer " + tc.token}})))
					}
					client, err := v03client.NewFromCard(ctxFor(t), served, opts...)
					if err != nil {
						t.Fatalf("0.3 client from the card at %s: %v", path, err)
					}
					res, err := client.SendMessage(ctxFor(t), &v03.MessageSendParams{
						Message: v03.NewMessage(v03.MessageRoleUser, v03.TextPart{Text: "from a 0.3 client"}),
					})
					if err != nil {
						t.Fatalf("0.3 SendMessage: %v", err)
					}
					if got := v03ResultText(res); got != "from a 0.3 client" {
						t.Errorf("0.3 reply = %#v, want the echo", res)
					}
				}
			})
		}
		// The compatibility client's parser reads the scopes as the
		// SDK's own does, so it cannot read a card with security
		// requirements; the 0.3 SDK above reads the 0.3 security.
		if tc.sdkReadsCard {
			t.Run("1.0 SDK 0.3 compatibility client", func(t *testing.T) {
				client, _ := clientFromCard(t, h.Endpoint(), a2av0.NewAgentCardParser(),
					a2aclient.WithDefaultsDisabled(), a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}))
				res, err := client.SendMessage(withToken(t, tc.token), userText("from the compat client"))
				if err != nil {
					t.Fatalf("SendMessage: %v", err)
				}
				if resultText(res) != "from the compat client" {
					t.Errorf("reply = %#v, want the echo", res)
				}
			})
		}
		t.Run("1.0 SDK", func(t *testing.T) {
			var parser agentcard.Parser // the SDK's own
			if !tc.sdkReadsCard {
				parser = strictParser
			}
			client, served := clientFromCard(t, h.Endpoint(), parser)
			if first := served.SupportedInterfaces[0]; first.ProtocolVersion != a2a.Version || first.URL != h.Endpoint() {
				t.Errorf("preferred interface = %+v, want 1.0 at %s", first, h.Endpoint())
			}
			res, err := client.SendMessage(withToken(t, tc.token), userText("from a 1.0 client"))
			if err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			if resultText(res) != "from a 1.0 client" {
				t.Errorf("reply = %#v, want the echo", res)
			}
		})
		t.Run("one card at both paths", func(t *testing.T) {
			current, legacy := httpGet(t, h.CardURL()), httpGet(t, h.Endpoint()+legacyCardPath)
			if legacy.status != http.StatusOK || !bytes.Equal(current.body, legacy.body) || current.header.Get("ETag") != legacy.header.Get("ETag") {
				t.Errorf("%s: status %d, ETag %q; want the card of %s (ETag %q)",
					legacyCardPath, legacy.status, legacy.header.Get("ETag"), card.WellKnownPath, current.header.Get("ETag"))
			}
			p, err := card.Parse(current.body)
			if err != nil || p.SpecVersion != card.SpecVersion10 {
				t.Fatalf("card parses as %v, %v; want a 1.0 card", p, err)
			}
		})
		if tc.pub != nil && v03Fields {
			t.Run("signature covers the 0.3 fields", func(t *testing.T) {
				testSignedCompatCard(t, h, tc.pub)
			})
		}
	})
}

// testSignedCompatCard checks that the signed card verifies as served and
// that the 0.3 fields are inside what it signs: rewriting where 0.3 clients
// are sent breaks the signature.
func testSignedCompatCard(t *testing.T, h *Host, pubPEM []byte) {
	raw := getCard(t, h.CardURL())
	if _, err := card.Verify(raw, [][]byte{pubPEM}); err != nil {
		t.Fatalf("served card does not verify: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["url"] != h.Endpoint() {
		t.Fatalf("signed card url = %v, want %s", doc["url"], h.Endpoint())
	}
	for field, value := range map[string]any{
		"url":                  "https://attacker.example/a2a",
		"additionalInterfaces": []any{map[string]any{"url": "https://attacker.example/a2a", "transport": "JSONRPC"}},
		"preferredTransport":   "GRPC",
	} {
		tampered := map[string]any{}
		for k, v := range doc {
			tampered[k] = v
		}
		tampered[field] = value
		forged, err := json.Marshal(tampered)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := card.Verify(forged, [][]byte{pubPEM}); err == nil {
			t.Errorf("card with %s rewritten still verifies: the signature must cover the 0.3 fields", field)
		}
	}
}

// strictParser reads a card as this project's readers do: the proto's JSON,
// checked.
func strictParser(raw []byte) (*a2a.AgentCard, error) {
	p, err := card.Parse(raw)
	if err != nil {
		return nil, err
	}
	return p.Card, nil
}

// withToken is a context for a 1.0 SDK call that sends token as a bearer
// token when set.
func withToken(t *testing.T, token string) context.Context {
	if token == "" {
		return ctxFor(t)
	}
	return a2aclient.AttachServiceParams(ctxFor(t), a2aclient.ServiceParams{"Authorization": {"Bearer " + token}})
}

// clientFromCard resolves the card at base with the 1.0 SDK's resolver and
// parser (nil is the SDK's own) and builds a client from it.
func clientFromCard(t *testing.T, base string, parser agentcard.Parser, opts ...a2aclient.FactoryOption) (*a2aclient.Client, *a2a.AgentCard) {
	t.Helper()
	resolver := agentcard.NewResolver(nil)
	resolver.CardParser = parser
	served, err := resolver.Resolve(ctxFor(t), base)
	if err != nil {
		t.Fatalf("resolve card at %s: %v", base, err)
	}
	client, err := a2aclient.NewFromCard(ctxFor(t), served, opts...)
	if err != nil {
		t.Fatalf("client from card: %v", err)
	}
	return client, served
}

func v03ResultText(res v03.SendMessageResult) string {
	var parts v03.ContentParts
	switch r := res.(type) {
	case *v03.Message:
		parts = r.Parts
	case *v03.Task:
		for _, a := range r.Artifacts {
			parts = append(parts, a.Parts...)
		}
	}
	var text string
	for _, p := range parts {
		if tp, ok := p.(v03.TextPart); ok {
			text += tp.Text
		}
	}
	return text
}

// TestCardETagFollowsContent covers section 8.6.1 across a change of card
// at one URL: a client revalidating the card it cached from the agent's
// previous deployment gets the new card, not 304, since the ETag is
// derived from the content served.
func TestCardETagFollowsContent(t *testing.T) {
	keyPEM, _ := signingKey(t)
	t.Setenv("CARD_SIGNING_KEY", string(keyPEM))
	port := freePort(t)
	// serve deploys the agent on port, reads its card, then revalidates
	// the card cached with etag; in a subtest, so that the deployment is
	// gone, and the port free, once it returns.
	serve := func(name, toml, etag string) (fresh, revalidated httpResult) {
		if !t.Run(name, func(t *testing.T) {
			cfg := parseConfig(t, toml)
			cfg.Server.HTTPPort = port
			h := startInProcess(t, cfg, Options{})
			fresh = httpGet(t, h.CardURL())
			if fresh.status != http.StatusOK {
				t.Fatalf("card status %d", fresh.status)
			}
			if etag != "" {
				revalidated = do(t, http.MethodGet, h.CardURL(), http.Header{"If-None-Match": {etag}}, nil)
			}
		}) {
			t.FailNow()
		}
		return fresh, revalidated
	}
	before, _ := serve("unsigned", echoConfig, "")
	after, revalidated := serve("signed", echoConfig+"\n[card]\nsigning_key = \"${CARD_SIGNING_KEY}\"\n", before.header.Get("ETag"))
	if bytes.Equal(before.body, after.body) {
		t.Fatal("the two deployments serve the same card; the test cannot tell ETags apart")
	}
	if before.header.Get("ETag") == after.header.Get("ETag") {
		t.Errorf("ETag %q did not change with the card", before.header.Get("ETag"))
	}
	if revalidated.status != http.StatusOK || !bytes.Equal(revalidated.body, after.body) {
		t.Errorf("revalidating the previous card: status %d; want 200 with the new card", revalidated.status)
	}
}
