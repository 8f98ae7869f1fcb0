package card

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const schemaBase = "https://schemas.test/"

var (
	schemasOnce sync.Once
	schema10    *jsonschema.Schema
	schema03    *jsonschema.Schema
	schemasErr  error
)

// cardSchemas compiles the AgentCard schemas of A2A 1.0 and 0.3 from
// testdata. The 1.0 bundle holds one schema per proto message, each
// referring to the others by file name, so each is registered under it.
func cardSchemas(t testing.TB) (v10, v03 *jsonschema.Schema) {
	t.Helper()
	schemasOnce.Do(func() { schema10, schema03, schemasErr = compileSchemas() })
	if schemasErr != nil {
		t.Fatalf("compile schemas: %v", schemasErr)
	}
	return schema10, schema03
}

func compileSchemas() (*jsonschema.Schema, *jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	raw, err := os.ReadFile(filepath.Join("testdata", "schema", "a2a-1.0.schema.json"))
	if err != nil {
		return nil, nil, err
	}
	var bundle struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &bundle); err != nil {
		return nil, nil, err
	}
	for title, def := range bundle.Definitions {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(def))
		if err != nil {
			return nil, nil, err
		}
		if err := c.AddResource(schemaBase+definitionFile(title), doc); err != nil {
			return nil, nil, err
		}
	}
	v10, err := c.Compile(schemaBase + definitionFile("Agent Card"))
	if err != nil {
		return nil, nil, err
	}
	raw03, err := os.ReadFile(filepath.Join("testdata", "schema", "agent-card-0.3.0.schema.json"))
	if err != nil {
		return nil, nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw03))
	if err != nil {
		return nil, nil, err
	}
	if err := c.AddResource(schemaBase+"agent-card-0.3.0.schema.json", doc); err != nil {
		return nil, nil, err
	}
	v03, err := c.Compile(schemaBase + "agent-card-0.3.0.schema.json#/definitions/AgentCard")
	return v10, v03, err
}

// definitionFile maps a bundle title ("Agent Card") to the file name other
// schemas refer to it by ("lf.a2a.v1.AgentCard.jsonschema.json").
func definitionFile(title string) string {
	name := strings.ReplaceAll(title, " ", "")
	switch name {
	case "Struct", "Timestamp", "Value":
		return "google.protobuf." + name + ".jsonschema.json"
	}
	return "lf.a2a.v1." + name + ".jsonschema.json"
}

func validateSchema(t *testing.T, sch *jsonschema.Schema, cardJSON []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(cardJSON))
	if err != nil {
		t.Fatalf("decode card: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("card does not validate against the schema: %v\ncard: %s", err, cardJSON)
	}
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
