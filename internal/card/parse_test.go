package card

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func readSample(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "cards", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestParseValidSamples(t *testing.T) {
	v10, v03 := cardSchemas(t)
	tests := []struct {
		file    string
		version string
		// schemaValid is false for a card that mixes 1.0 and 0.3 fields,
		// which neither schema allows but which Parse accepts.
		schemaValid bool
		check       func(t *testing.T, c *a2a.AgentCard)
	}{
		{
			file: "valid/glossary-translator-1.0.json", version: SpecVersion10, schemaValid: true,
			check: func(t *testing.T, c *a2a.AgentCard) {
				if len(c.SupportedInterfaces) != 2 || c.SupportedInterfaces[1].Tenant != "docs-team" {
					t.Errorf("interfaces = %+v", c.SupportedInterfaces)
				}
				if got := c.SecurityRequirements[0]["oauth"]; !slices.Equal(got, a2a.SecuritySchemeScopes{"translate"}) {
					t.Errorf("oauth scopes = %v", got)
				}
				if got := c.Skills[1].SecurityRequirements[0]["oauth"]; !slices.Equal(got, a2a.SecuritySchemeScopes{"glossary.read"}) {
					t.Errorf("skill scopes = %v", got)
				}
				flows := c.SecuritySchemes["oauth"].(a2a.OAuth2SecurityScheme).Flows
				if _, ok := flows.(a2a.ClientCredentialsOAuthFlow); !ok {
					t.Errorf("flows = %T", flows)
				}
				if c.Capabilities.Extensions[0].Params["maxTerms"] == nil {
					t.Errorf("extension params lost: %+v", c.Capabilities.Extensions)
				}
			},
		},
		{
			file: "valid/dual-shape-1.0.json", version: SpecVersion10,
			check: func(t *testing.T, c *a2a.AgentCard) {
				if len(c.SupportedInterfaces) != 1 || len(c.SecurityRequirements) != 1 {
					t.Errorf("card = %+v", c)
				}
				if _, ok := c.SecuritySchemes["bearer"].(a2a.HTTPAuthSecurityScheme); !ok {
					t.Errorf("schemes = %+v", c.SecuritySchemes)
				}
			},
		},
		{
			file: "valid/harbour-weather-0.3.json", version: SpecVersion03, schemaValid: true,
			check: func(t *testing.T, c *a2a.AgentCard) {
				want := []a2a.AgentInterface{
					{URL: "https://weather.example.org/a2a/grpc", ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: "0.3.0"},
					{URL: "https://weather.example.org/a2a/jsonrpc", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "0.3.0"},
				}
				if len(c.SupportedInterfaces) != len(want) {
					t.Fatalf("interfaces = %+v; want %+v", c.SupportedInterfaces, want)
				}
				for i, w := range want {
					if *c.SupportedInterfaces[i] != w {
						t.Errorf("interface %d = %+v; want %+v", i, *c.SupportedInterfaces[i], w)
					}
				}
				if !c.Capabilities.ExtendedAgentCard || !c.Capabilities.PushNotifications {
					t.Errorf("capabilities = %+v", c.Capabilities)
				}
				if k, ok := c.SecuritySchemes["stationKey"].(a2a.APIKeySecurityScheme); !ok || k.Location != "query" || k.Name != "station_key" {
					t.Errorf("api key scheme = %+v", c.SecuritySchemes["stationKey"])
				}
				if o, ok := c.SecuritySchemes["harbourSSO"].(a2a.OAuth2SecurityScheme); !ok {
					t.Errorf("oauth scheme = %+v", c.SecuritySchemes["harbourSSO"])
				} else if _, ok := o.Flows.(a2a.AuthorizationCodeOAuthFlow); !ok {
					t.Errorf("oauth flow = %T; want the authorization-code flow", o.Flows)
				}
				if len(c.SecurityRequirements) != 2 || len(c.Skills[0].SecurityRequirements) != 1 {
					t.Errorf("security = %+v / %+v", c.SecurityRequirements, c.Skills[0].SecurityRequirements)
				}
			},
		},
		{
			file: "valid/plain-echo-0.3.json", version: SpecVersion03, schemaValid: true,
			check: func(t *testing.T, c *a2a.AgentCard) {
				want := a2a.AgentInterface{URL: "http://127.0.0.1:9100", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "0.2.5"}
				if len(c.SupportedInterfaces) != 1 || *c.SupportedInterfaces[0] != want {
					t.Errorf("interfaces = %+v; want the url with the default JSONRPC transport", c.SupportedInterfaces)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw := readSample(t, tt.file)
			if tt.schemaValid {
				sch := v10
				if tt.version == SpecVersion03 {
					sch = v03
				}
				validateSchema(t, sch, raw)
			}
			p, err := Parse(raw)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if p.SpecVersion != tt.version || !bytes.Equal(p.Raw, raw) {
				t.Errorf("SpecVersion = %q (want %q), Raw kept = %v", p.SpecVersion, tt.version, bytes.Equal(p.Raw, raw))
			}
			tt.check(t, p.Card)
		})
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	tests := []struct {
		name    string
		raw     []byte
		version string
		paths   []string
	}{
		{
			name: "1.0 sample", raw: readSample(t, "invalid/many-problems-1.0.json"), version: SpecVersion10,
			paths: []string{
				"$.name", "$.supportedInterfaces[0].protocolVersion", "$.provider.url",
				"$.version", "$.capabilities.streaming", "$.securitySchemes.both",
				"$.securitySchemes.key.apiKeySecurityScheme.location", "$.securitySchemes.none",
				"$.defaultInputModes", "$.defaultOutputModes[1]", "$.skills[1].id", "$.skills[1].description",
				"$.skills[1].tags", "$.skills[2].securityRequirements[0].schemes.key.list[0]",
				"$.iconURL",
			},
		},
		{
			name: "0.3 sample", raw: readSample(t, "invalid/many-problems-0.3.json"), version: SpecVersion03,
			paths: []string{
				"$.protocolVersion", "$.capabilities", "$.securitySchemes.basic.type", "$.securitySchemes.key.in",
				"$.securitySchemes.sso.flows", "$.defaultOutputModes", "$.skills[0].tags", "$.documentationURL",
			},
		},
		{
			name: "empty object", raw: []byte(`{}`), version: SpecVersion10,
			paths: []string{
				"$.name", "$.description", "$.supportedInterfaces", "$.version", "$.capabilities",
				"$.defaultInputModes", "$.defaultOutputModes", "$.skills",
			},
		},
		{
			name: "nulls and wrong containers", version: SpecVersion10,
			raw:   []byte(`{"name":"n","description":"d","version":"1","supportedInterfaces":{},"capabilities":[],"defaultInputModes":["a",null],"defaultOutputModes":["a"],"skills":[null],"signatures":[{"protected":"x"}]}`),
			paths: []string{"$.supportedInterfaces", "$.capabilities", "$.defaultInputModes[1]", "$.skills[0]", "$.signatures[0].signature"},
		},
		{
			name: "0.3 scheme without type", version: SpecVersion03,
			raw:   []byte(`{"name":"n","description":"","url":"u","protocolVersion":"0.3.0","version":"1","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[],"securitySchemes":{"a":{"scheme":"bearer"},"b":{"type":7}}}`),
			paths: []string{"$.securitySchemes.a.type", "$.securitySchemes.b.type"},
		},
		{
			name: "a property but for case", version: SpecVersion10,
			raw:   completeCard(SpecVersion10, `,"URL":"http://127.0.0.1:18555","homepage":"h","Homepage":"h"`),
			paths: []string{"$.URL"},
		},
		{name: "an unknown property given twice", raw: completeCard(SpecVersion10, `,"homepage":"a","homepage":"b"`), paths: []string{"$.homepage"}},
		{name: "not JSON", raw: []byte(`{"name":`), paths: []string{"$"}},
		{name: "trailing data", raw: []byte(`{} {}`), paths: []string{"$"}},
		{name: "not an object", raw: []byte(`["card"]`), paths: []string{"$"}},
		{name: "empty input", raw: nil, paths: []string{"$"}},
		{name: "too large", raw: append([]byte(`{"name":"`), bytes.Repeat([]byte("x"), MaxCardBytes)...), paths: []string{"$"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.raw)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Parse error = %v; want a *ValidationError", err)
			}
			var got []string
			for _, p := range verr.Problems {
				got = append(got, p.Path)
				if p.Message == "" {
					t.Errorf("problem at %s has no message", p.Path)
				}
				if !strings.Contains(err.Error(), p.Path) {
					t.Errorf("Error() does not name %s: %v", p.Path, err)
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.paths))
			if !slices.Equal(got, want) {
				t.Errorf("problem paths:\n got %q\nwant %q\nerror: %v", got, want, err)
			}
			if verr.SpecVersion != tt.version {
				t.Errorf("SpecVersion = %q; want %q", verr.SpecVersion, tt.version)
			}
		})
	}
}

// TestParseReportsDeviations checks the empty values the specification's own
// signing example holds (§8.4.1) parse, reported as deviations: the first
// card is what the A2A Go SDK's `a2a serve --echo` (v2.4.0) publishes.
func TestParseReportsDeviations(t *testing.T) {
	const iface = `"supportedInterfaces":[{"url":"http://127.0.0.1:18555","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]`
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{"no skills", `{` + iface + `,"capabilities":{"streaming":true},"defaultInputModes":["text"],"defaultOutputModes":["text"],` +
			`"description":"Echoes the user's message back as a response","name":"Echo Agent","skills":[],"version":"1.0.0"}`, []string{"$.skills"}},
		{"no description", `{` + iface + `,"capabilities":{},"defaultInputModes":["text"],"defaultOutputModes":["text"],` +
			`"description":"","name":"n","skills":[{"id":"s","name":"s","description":"d","tags":["t"]}],"version":"1"}`, []string{"$.description"}},
		{"complete", `{` + iface + `,"capabilities":{},"defaultInputModes":["text"],"defaultOutputModes":["text"],` +
			`"description":"d","name":"n","skills":[{"id":"s","name":"s","description":"d","tags":["t"]}],"version":"1"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse([]byte(tt.raw))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var got []string
			for _, d := range p.Deviations {
				got = append(got, d.Path)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("deviations = %q; want %q", got, tt.want)
			}
		})
	}
}

// completeCard is a card that follows the schema of version, but for the
// properties in extra (each after a comma); skillExtra goes into its
// skill.
func completeCard(version, extra string, skillExtra ...string) []byte {
	head := `"supportedInterfaces":[{"url":"http://127.0.0.1:18555","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]`
	if version == SpecVersion03 {
		head = `"url":"http://127.0.0.1:18555","protocolVersion":"0.3.0"`
	}
	return []byte(`{` + head + `,"capabilities":{},"defaultInputModes":["text"],"defaultOutputModes":["text"],"description":"d","name":"n",` +
		`"skills":[{"id":"s","name":"s","description":"d","tags":["t"]` + strings.Join(skillExtra, "") + `}],"version":"1"` + extra + `}`)
}

// TestParseReportsUndefinedProperties: each property a card's version does
// not define, on the card itself or in any object of it, is a deviation at
// its JSON path, and the card reads as it does without them.
func TestParseReportsUndefinedProperties(t *testing.T) {
	const (
		not10  = "is not defined by A2A 1.0"
		not03  = "is not defined by A2A 0.3"
		from03 = "is an A2A 0.3 property, which A2A 1.0 does not define"
	)
	tests := []struct {
		name, version, extra, skillExtra string
		want                             map[string]string // each deviation's path, and what its message says
	}{
		{name: "unknown properties on a 1.0 card", version: SpecVersion10, extra: `,"homepage":"https://n.example.com","Extra Field":true`,
			want: map[string]string{"$.homepage": not10, `$["Extra Field"]`: not10}},
		{name: "an unknown property holding a default value", version: SpecVersion10, extra: `,"homepage":""`,
			want: map[string]string{"$.homepage": not10}},
		{name: "0.3 and unknown properties on a 1.0 card", version: SpecVersion10,
			extra: `,"url":"http://127.0.0.1:18555","protocolVersion":"0.3.0","supportsAuthenticatedExtendedCard":true,"homepage":"h"`,
			want:  map[string]string{"$.homepage": not10, "$.protocolVersion": from03, "$.supportsAuthenticatedExtendedCard": from03, "$.url": from03}},
		{name: "unknown properties at the top and nested", version: SpecVersion10, extra: `,"futureField":{"nested":[1,"two"]}`, skillExtra: `,"rating":4.5`,
			want: map[string]string{"$.futureField": not10, "$.skills[0].rating": not10}},
		{name: "1.0 and unknown properties on a 0.3 card", version: SpecVersion03,
			extra: `,"securityRequirements":[{"schemes":{"k":{"list":[]}}}],"supportedInterface":[],"homepage":"h"`, skillExtra: `,"securityRequirements":[]`,
			want: map[string]string{"$.homepage": not03, "$.securityRequirements": not03, "$.skills[0].securityRequirements": not03, "$.supportedInterface": not03}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(completeCard(tt.version, tt.extra, tt.skillExtra))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := map[string]string{}
			for _, d := range p.Deviations {
				got[d.Path] = d.Message
			}
			if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(tt.want))) {
				t.Errorf("deviations at %q; want them at %q", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(tt.want)))
			}
			for path, says := range tt.want {
				if msg, ok := got[path]; ok && !strings.Contains(msg, says) {
					t.Errorf("deviation at %s says %q; want it to say %q", path, msg, says)
				}
			}
			without, err := Parse(completeCard(tt.version, ""))
			if err != nil {
				t.Fatal(err)
			}
			if p.SpecVersion != tt.version || !reflect.DeepEqual(p.Card, without.Card) {
				t.Errorf("read as A2A %s card %+v; want the A2A %s card %+v it is without them", p.SpecVersion, p.Card, tt.version, without.Card)
			}
		})
	}
}

func TestParseTooLargeSaysSo(t *testing.T) {
	_, err := Parse(make([]byte, MaxCardBytes+1))
	if err == nil || !strings.Contains(err.Error(), "more than the 1048576") {
		t.Errorf("error = %v; want it to name the size limit", err)
	}
}
