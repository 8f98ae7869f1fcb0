package agentconfig

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestReferences(t *testing.T) {
	raw := []byte(`description = "${B} and ${A:-x} and ${B}"
api_key = "${API_KEY}" # $NOT_A_REF and ${1BAD}`)
	want := []string{"A", "API_KEY", "B"}
	if got := References(raw); !reflect.DeepEqual(got, want) {
		t.Errorf("References() = %v, want %v", got, want)
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"GREETING": "hello", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name        string
		description string
		want        string
		wantErr     string
	}{
		{"set", "${GREETING} world", "hello world", ""},
		{"default used when unset", "${MISSING:-fallback}", "fallback", ""},
		{"set but empty wins over default", "[${EMPTY:-fallback}]", "[]", ""},
		{"unset without default", "${MISSING} ${ALSO_MISSING}", "", "MISSING, ALSO_MISSING"},
		{"no reference", "plain", "plain", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte("[agent]\nname = \"a\"\ndescription = \"" + tt.description + "\"\n"))
			if err != nil {
				t.Fatal(err)
			}
			err = cfg.Expand(lookup)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Expand() error = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Agent.Description != tt.want {
				t.Errorf("description = %q, want %q", cfg.Agent.Description, tt.want)
			}
		})
	}
}

func TestExpandReachesNestedStrings(t *testing.T) {
	cfg, err := Parse([]byte(`
[agent]
name = "a"
[agent.provider]
organization = "${ORG}"
url = "https://example.com"
[handler]
type = "llm"
[handler.llm]
base_url = "http://127.0.0.1:1"
model = "m"
api_key = "${KEY}"
[[skills]]
id = "s"
tags = ["${TAG}"]
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ORG": "org", "KEY": "k", "TAG": "t"}
	if err := cfg.Expand(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	if cfg.Agent.Provider.Organization != "org" || cfg.Handler.LLM.APIKey != "k" || cfg.Skills[0].Tags[0] != "t" {
		t.Errorf("nested values not expanded: %+v %+v %+v", cfg.Agent.Provider, cfg.Handler.LLM, cfg.Skills[0])
	}
}

// TestExpandReachesEveryStringButLiteralOnes: a reference counts wherever
// it is written, so it is expanded wherever it is written, skill modes
// included; only the literal-only keys keep theirs.
func TestExpandReachesEveryStringButLiteralOnes(t *testing.T) {
	cfg, err := Parse([]byte(`
[agent]
name = "Modes"
[[skills]]
id = "${SKILL_ID}"
name = "Echo"
input_modes = ["${MODE}", "text/plain"]
output_modes = ["${OUT_MODE:-application/json}"]
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MODE": "text/markdown", "SKILL_ID": "echo"}
	if err := cfg.Expand(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	s := cfg.Skills[0]
	if want := []string{"text/markdown", "text/plain"}; !slices.Equal(s.InputModes, want) {
		t.Errorf("input_modes = %q, want %q", s.InputModes, want)
	}
	if want := []string{"application/json"}; !slices.Equal(s.OutputModes, want) {
		t.Errorf("output_modes = %q, want %q", s.OutputModes, want)
	}
	if s.ID != "echo" {
		t.Errorf("skill id = %q, want echo", s.ID)
	}
}

// TestLiteralOnlyKeysAreKeys keeps literalOnly in step with the config's
// keys: a renamed key would otherwise silently become expandable.
func TestLiteralOnlyKeysAreKeys(t *testing.T) {
	s := configSchema()
	for key := range literalOnly {
		if _, ok := s.kinds[key]; !ok {
			t.Errorf("literal-only key %q is not a key of the config", key)
		}
	}
}

func TestUnresolved(t *testing.T) {
	cfg, err := Parse([]byte(`# ${IN_COMMENT}
[agent]
name = "a"
description = "${SET} ${DEFAULTED:-x} ${MISSING} ${MISSING}"
[auth]
bearer_token = "${ALSO_MISSING}"
`))
	if err != nil {
		t.Fatal(err)
	}
	before := cfg.Agent.Description
	got := cfg.Unresolved(func(k string) (string, bool) { return "v", k == "SET" })
	if want := []string{"ALSO_MISSING", "MISSING"}; !slices.Equal(got, want) {
		t.Errorf("Unresolved() = %v, want %v", got, want)
	}
	if cfg.Agent.Description != before {
		t.Errorf("Unresolved changed the config: description = %q", cfg.Agent.Description)
	}
}

func TestSubstitute(t *testing.T) {
	ref := func(name, def string, hasDefault bool) string {
		if hasDefault {
			return "<" + name + "|" + def + ">"
		}
		return "<" + name + ">"
	}
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain $x", "PLAIN $X"},
		{"${A}", "<A>"},
		{"a ${A} b ${B:-d} c ${C:-}", "A <A> B <B|d> C <C|>"},
		{"$${A}${1BAD}", "$<A>${1BAD}"},
	}
	for _, tt := range tests {
		if got := Substitute(tt.in, strings.ToUpper, ref); got != tt.want {
			t.Errorf("Substitute(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
