package card

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/cardschema"
)

// cardSchemas returns the AgentCard schemas of A2A 1.0 and 0.3.
func cardSchemas(t testing.TB) (v10, v03 *jsonschema.Schema) {
	t.Helper()
	s := cardschema.Load(t)
	return s.V10, s.V03
}

func validateSchema(t *testing.T, sch *jsonschema.Schema, cardJSON []byte) {
	t.Helper()
	cardschema.Validate(t, sch, cardJSON)
}

// The schemas must be strict enough to catch a broken card, or validating
// against them would prove nothing.
func TestSchemasRejectBrokenCards(t *testing.T) {
	v10, v03 := cardSchemas(t)
	tests := []struct {
		name string
		sch  *jsonschema.Schema
		card string
	}{
		{"1.0 unknown property", v10, `{"name":"a","surprise":1}`},
		{"1.0 scopes as bare array", v10, `{"securityRequirements":[{"schemes":{"b":[]}}]}`},
		{"1.0 streaming as string", v10, `{"capabilities":{"streaming":"yes"}}`},
		{"0.3 missing url", v03, `{"name":"a","description":"","version":"1","protocolVersion":"0.3.0","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.card))
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.sch.Validate(inst); err == nil {
				t.Errorf("schema accepted %s", tt.card)
			}
		})
	}
}
