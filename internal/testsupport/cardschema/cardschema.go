// Package cardschema validates Agent Cards against the JSON schemas the A2A
// project publishes, so that tests hold every card the project writes to
// rules nobody here wrote. The schemas are embedded (see README.md for their
// origin), so validation needs no network.
package cardschema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	//go:embed a2a-1.0.schema.json
	bundle10 []byte
	//go:embed agent-card-0.3.0.schema.json
	schema03 []byte
)

// base is the made-up location the schemas are registered under; they
// refer to each other by file name only.
const base = "https://schemas.test/"

// Schemas are the AgentCard schemas of both protocol versions.
type Schemas struct {
	V10 *jsonschema.Schema
	V03 *jsonschema.Schema
}

var compiled = sync.OnceValues(compile)

// Load returns the compiled schemas, failing the test if they do not compile.
func Load(t testing.TB) Schemas {
	t.Helper()
	s, err := compiled()
	if err != nil {
		t.Fatalf("compile the A2A card schemas: %v", err)
	}
	return s
}

// compile registers the 1.0 bundle, which holds one schema per proto
// message, each under the file name the others refer to it by, and the
// 0.3 schema, and compiles the AgentCard definition of each.
func compile() (Schemas, error) {
	c := jsonschema.NewCompiler()
	var bundle struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(bundle10, &bundle); err != nil {
		return Schemas{}, err
	}
	for title, def := range bundle.Definitions {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(def))
		if err != nil {
			return Schemas{}, err
		}
		if err := c.AddResource(base+definitionFile(title), doc); err != nil {
			return Schemas{}, err
		}
	}
	v10, err := c.Compile(base + definitionFile("Agent Card"))
	if err != nil {
		return Schemas{}, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema03))
	if err != nil {
		return Schemas{}, err
	}
	if err := c.AddResource(base+"agent-card-0.3.0.schema.json", doc); err != nil {
		return Schemas{}, err
	}
	v03, err := c.Compile(base + "agent-card-0.3.0.schema.json#/definitions/AgentCard")
	return Schemas{V10: v10, V03: v03}, err
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

// Check validates cardJSON against sch.
func Check(sch *jsonschema.Schema, cardJSON []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(cardJSON))
	if err != nil {
		return fmt.Errorf("decode card: %w", err)
	}
	return sch.Validate(inst)
}

// Validate fails the test unless cardJSON validates against sch.
func Validate(t testing.TB, sch *jsonschema.Schema, cardJSON []byte) {
	t.Helper()
	if err := Check(sch, cardJSON); err != nil {
		t.Errorf("card does not validate against the A2A schema: %v\ncard: %s", err, cardJSON)
	}
}

// ValidateStrict10 fails the test unless cardJSON is a strictly valid A2A
// 1.0 card: valid against the 1.0 schema, which refuses every property it
// does not name, and holding every field the 1.0 proto marks REQUIRED.
func ValidateStrict10(t testing.TB, cardJSON []byte) {
	t.Helper()
	Validate(t, Load(t).V10, cardJSON)
	missing, err := MissingRequired(cardJSON)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("card leaves out fields the A2A 1.0 proto requires: %s\ncard: %s", strings.Join(missing, ", "), cardJSON)
	}
}
