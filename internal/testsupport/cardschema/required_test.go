package cardschema

import (
	"slices"
	"testing"
)

// The checks must catch what they are for, or passing them proves nothing.
func TestMissingRequired(t *testing.T) {
	const iface = `{"url":"http://a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}`
	tests := []struct {
		name, card string
		want       []string
	}{
		{"complete", `{"name":"n","description":"d","version":"1","supportedInterfaces":[` + iface + `],"capabilities":{},` +
			`"defaultInputModes":["t"],"defaultOutputModes":["t"],"skills":[{"id":"s","name":"s","description":"d","tags":["t"]}]}`, nil},
		{"empty object", `{}`, []string{"$.capabilities", "$.defaultInputModes", "$.defaultOutputModes", "$.description",
			"$.name", "$.skills", "$.supportedInterfaces", "$.version"}},
		{"nested", `{"name":"n","description":"d","version":"1","supportedInterfaces":[{"url":"http://a"}],"capabilities":{},` +
			`"defaultInputModes":["t"],"defaultOutputModes":["t"],"provider":{"url":"u"},` +
			`"securitySchemes":{"k":{"apiKeySecurityScheme":{"name":"X"}}},` +
			`"skills":[{"id":"s","name":"","description":"d","tags":[]}]}`,
			[]string{"$.provider.organization", `$.securitySchemes["k"].apiKeySecurityScheme.location`, "$.skills[0].name",
				"$.skills[0].tags", "$.supportedInterfaces[0].protocolBinding", "$.supportedInterfaces[0].protocolVersion"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MissingRequired([]byte(tt.card))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("missing = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestSchemaRefusesUnknownProperties(t *testing.T) {
	for _, card := range []string{`{"url":"http://a"}`, `{"skills":[{"security":[]}]}`,
		`{"securitySchemes":{"b":{"httpAuthSecurityScheme":{"scheme":"Bearer"},"type":"http"}}}`} {
		if err := Check(Load(t).V10, []byte(card)); err == nil {
			t.Errorf("the 1.0 schema accepts %s", card)
		}
	}
}
