package card

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	v03 "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// fields03 are the card properties only 0.3 readers use.
var fields03 = []string{"url", "preferredTransport", "protocolVersion", "additionalInterfaces", "security", "supportsAuthenticatedExtendedCard"}

// only10 is a combined card without what only 0.3 reads: the 1.0 card.
func only10(t *testing.T, raw []byte) []byte {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range fields03 {
		delete(obj, k)
	}
	skills, _ := obj["skills"].([]any)
	for _, s := range skills {
		delete(s.(map[string]any), "security")
	}
	schemes, _ := obj["securitySchemes"].(map[string]any)
	for _, s := range schemes {
		scheme := s.(map[string]any)
		for k := range scheme {
			if _, wrapper := schemeTypes03[k]; !wrapper {
				delete(scheme, k)
			}
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// everySchemeCard declares a 0.3 interface and every kind of security
// scheme, required by the card and by a skill.
func everySchemeCard() *a2a.AgentCard {
	return &a2a.AgentCard{
		Name: "Vault", Description: "Keeps secrets.", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{
			{URL: "https://vault.example.com/a2a", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version},
			{URL: "https://vault.example.com/a2a", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: CompatProtocolVersion},
			{URL: "https://vault.example.com/grpc", ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: "0.3.0"},
			{URL: "https://vault.example.com/t", ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: "0.3", Tenant: "acme"},
		},
		Capabilities:       a2a.AgentCapabilities{ExtendedAgentCard: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		SecuritySchemes: a2a.NamedSecuritySchemes{
			"key":    a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationHeader, Name: "X-Key", Description: "An API key."},
			"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT"},
			"oauth": a2a.OAuth2SecurityScheme{Flows: a2a.ClientCredentialsOAuthFlow{
				TokenURL: "https://auth.example.com/token", Scopes: map[string]string{"read": "Read secrets."},
			}},
			"oidc": a2a.OpenIDConnectSecurityScheme{OpenIDConnectURL: "https://auth.example.com/.well-known/openid-configuration"},
			"mtls": a2a.MutualTLSSecurityScheme{Description: "A client certificate."},
		},
		SecurityRequirements: a2a.SecurityRequirementsOptions{
			{"bearer": {}},
			{"oauth": {"read"}, "mtls": {}},
		},
		Skills: []a2a.AgentSkill{
			{ID: "read", Name: "Read", Description: "Reads a secret.", Tags: []string{"read"},
				SecurityRequirements: a2a.SecurityRequirementsOptions{{"key": {}}}},
			{ID: "list", Name: "List", Description: "Lists secrets.", Tags: []string{"list"}},
		},
	}
}

// TestCombinedCardReadsAsBothVersions checks that a card declaring a 0.3
// interface is one card for both versions: what a 1.0 reader reads is the
// card unchanged, and the 0.3 SDK, which knows none of the 1.0 fields,
// finds in it the agent's 0.3 endpoints and security.
func TestCombinedCardReadsAsBothVersions(t *testing.T) {
	v10, v03Schema := cardSchemas(t)
	c := everySchemeCard()
	raw, err := MarshalCard(c, With03Fields)
	if err != nil {
		t.Fatal(err)
	}
	validateSchema(t, v03Schema, raw)
	validateSchema(t, v10, only10(t, raw))

	t.Run("1.0", func(t *testing.T) {
		combined, err := Parse(raw)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		plain, err := Parse(only10(t, raw))
		if err != nil {
			t.Fatalf("Parse of the 1.0 part: %v", err)
		}
		if got, want := deviationPaths(combined), []string{
			"$.additionalInterfaces", "$.preferredTransport", "$.protocolVersion", "$.security",
			"$.securitySchemes.bearer.bearerFormat", "$.securitySchemes.bearer.scheme", "$.securitySchemes.bearer.type",
			"$.securitySchemes.key.description", "$.securitySchemes.key.in", "$.securitySchemes.key.name", "$.securitySchemes.key.type",
			"$.securitySchemes.mtls.description", "$.securitySchemes.mtls.type",
			"$.securitySchemes.oauth.flows", "$.securitySchemes.oauth.type",
			"$.securitySchemes.oidc.openIdConnectUrl", "$.securitySchemes.oidc.type",
			"$.skills[0].security", "$.supportsAuthenticatedExtendedCard", "$.url",
		}; !slices.Equal(got, want) {
			t.Errorf("combined card deviations at %q; want every 0.3 field, %q", got, want)
		}
		if len(plain.Deviations) > 0 {
			t.Errorf("the 1.0 part has deviations %v", plain.Deviations)
		}
		if combined.SpecVersion != SpecVersion10 || !reflect.DeepEqual(combined.Card, plain.Card) {
			t.Errorf("combined card reads as %s %+v; want the 1.0 card %+v", combined.SpecVersion, combined.Card, plain.Card)
		}
		if !reflect.DeepEqual(combined.Card, c) {
			t.Errorf("card read back = %+v; want %+v", combined.Card, c)
		}
	})

	t.Run("0.3 SDK", func(t *testing.T) {
		var got v03.AgentCard
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("the 0.3 SDK cannot read the card: %v", err)
		}
		if got.URL != "https://vault.example.com/a2a" || got.PreferredTransport != v03.TransportProtocolJSONRPC || got.ProtocolVersion != CardProtocolVersion03 {
			t.Errorf("url, preferredTransport, protocolVersion = %q, %q, %q; want the first 0.3 interface", got.URL, got.PreferredTransport, got.ProtocolVersion)
		}
		wantInterfaces := []v03.AgentInterface{
			{URL: "https://vault.example.com/a2a", Transport: v03.TransportProtocolJSONRPC},
			{URL: "https://vault.example.com/grpc", Transport: v03.TransportProtocolGRPC},
		}
		if !reflect.DeepEqual(got.AdditionalInterfaces, wantInterfaces) {
			t.Errorf("additionalInterfaces = %+v; want every 0.3 interface without a tenant %+v", got.AdditionalInterfaces, wantInterfaces)
		}
		wantSecurity := []v03.SecurityRequirements{{"bearer": {}}, {"oauth": {"read"}, "mtls": {}}}
		if !reflect.DeepEqual(got.Security, wantSecurity) {
			t.Errorf("security = %+v; want %+v", got.Security, wantSecurity)
		}
		if !reflect.DeepEqual(got.Skills[0].Security, []v03.SecurityRequirements{{"key": {}}}) || got.Skills[1].Security != nil {
			t.Errorf("skill security = %+v, %+v", got.Skills[0].Security, got.Skills[1].Security)
		}
		if !got.SupportsAuthenticatedExtendedCard {
			t.Error("supportsAuthenticatedExtendedCard not set for a card with an extended card")
		}
		wantSchemes := v03.NamedSecuritySchemes{
			"key":    v03.APIKeySecurityScheme{In: v03.APIKeySecuritySchemeInHeader, Name: "X-Key", Description: "An API key."},
			"bearer": v03.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT"},
			"oauth": v03.OAuth2SecurityScheme{Flows: v03.OAuthFlows{ClientCredentials: &v03.ClientCredentialsOAuthFlow{
				TokenURL: "https://auth.example.com/token", Scopes: map[string]string{"read": "Read secrets."},
			}}},
			"oidc": v03.OpenIDConnectSecurityScheme{OpenIDConnectURL: "https://auth.example.com/.well-known/openid-configuration"},
			"mtls": v03.MutualTLSSecurityScheme{Description: "A client certificate."},
		}
		if !reflect.DeepEqual(got.SecuritySchemes, wantSchemes) {
			t.Errorf("securitySchemes = %+v; want %+v", got.SecuritySchemes, wantSchemes)
		}
	})

	t.Run("0.3 part alone", func(t *testing.T) {
		// What the card says to 0.3, read the way this package reads 0.3
		// cards, names the same 0.3 endpoints as supportedInterfaces.
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatal(err)
		}
		delete(obj, "supportedInterfaces")
		delete(obj, "securityRequirements")
		alone, _ := json.Marshal(obj)
		p, err := Parse(alone)
		if err != nil {
			t.Fatalf("Parse of the 0.3 part: %v", err)
		}
		var urls []string
		for _, iface := range p.Card.SupportedInterfaces {
			urls = append(urls, iface.URL+" "+string(iface.ProtocolBinding))
		}
		if p.SpecVersion != SpecVersion03 || strings.Join(urls, ", ") != "https://vault.example.com/a2a JSONRPC, https://vault.example.com/grpc GRPC" {
			t.Errorf("0.3 part reads as %s with interfaces %v", p.SpecVersion, urls)
		}
		if len(p.Card.SecurityRequirements) != 2 || len(p.Card.SecuritySchemes) != 5 {
			t.Errorf("0.3 part reads security as %+v / %+v", p.Card.SecurityRequirements, p.Card.SecuritySchemes)
		}
	})

}

// TestCardWithout03FieldsIsPlain10 checks that a card gets none of the 0.3
// fields unless it asks for them, and then only when it claims a 0.3
// interface, which it would otherwise not invite 0.3 clients to.
func TestCardWithout03FieldsIsPlain10(t *testing.T) {
	without03 := everySchemeCard()
	without03.SupportedInterfaces = without03.SupportedInterfaces[:1]
	tests := []struct {
		name string
		card *a2a.AgentCard
		enc  Encoding
	}{
		{"strict, with a 0.3 interface", everySchemeCard(), Strict10},
		{"0.3 fields asked for, without a 0.3 interface", without03, With03Fields},
	}
	v10, _ := cardSchemas(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := MarshalCard(tt.card, tt.enc)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, raw, only10(t, raw)) {
				t.Errorf("card carries 0.3 fields: %s", raw)
			}
			validateSchema(t, v10, raw)
			if p, err := Parse(raw); err != nil || len(p.Deviations) > 0 {
				t.Errorf("Parse = %v, deviations %v; want a plain 1.0 card", err, p)
			}
		})
	}
}

// deviationPaths lists where a parsed card deviates, sorted.
func deviationPaths(p *Parsed) []string {
	paths := make([]string, len(p.Deviations))
	for i, d := range p.Deviations {
		paths[i] = d.Path
	}
	slices.Sort(paths)
	return paths
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// TestSignatureCovers03Fields checks the decision that the 0.3 fields are
// signed content: the card verifies as published, and pointing 0.3 clients
// elsewhere breaks the signature.
func TestSignatureCovers03Fields(t *testing.T) {
	key := newTestKey(t, "ec-pkcs8")
	c := derivedCard(t)
	raw := signedIn(t, c, With03Fields, key)
	if _, err := Verify(raw, [][]byte{key.publicPEM}); err != nil {
		t.Fatalf("combined card does not verify: %v", err)
	}
	if !strings.Contains(string(raw), `"url": "http://127.0.0.1:8731"`) {
		t.Fatalf("derived card has no 0.3 url: %s", raw)
	}
	for _, edit := range [][2]string{
		{`"url": "http://127.0.0.1:8731"`, `"url": "https://attacker.example"`},
		{`"transport": "JSONRPC"`, `"transport": "GRPC"`},
		{`"type": "http"`, `"type": "apiKey"`},
		{`"protocolVersion": "0.3.0"`, `"protocolVersion": "0.2.6"`},
	} {
		forged := strings.Replace(string(raw), edit[0], edit[1], 1)
		if forged == string(raw) {
			t.Fatalf("%s not found in the card: %s", edit[0], raw)
		}
		if _, err := Verify([]byte(forged), [][]byte{key.publicPEM}); err == nil {
			t.Errorf("card with %s still verifies", edit[1])
		}
	}
}
