package agentconfig

import (
	"errors"
	"strings"
	"testing"
)

func TestParseAppliesDefaults(t *testing.T) {
	cfg, err := Parse([]byte(`
[agent]
name = "Echo Agent"

[[skills]]
id = "echo"
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.ID(); got != "echo-agent" {
		t.Errorf("ID() = %q, want echo-agent", got)
	}
	if cfg.Handler.Type != HandlerEcho {
		t.Errorf("handler type = %q, want %q", cfg.Handler.Type, HandlerEcho)
	}
	if cfg.ListenHost() != DefaultHost {
		t.Errorf("ListenHost() = %q, want %q", cfg.ListenHost(), DefaultHost)
	}
	if cfg.Skills[0].Name != "echo" {
		t.Errorf("skill name = %q, want the id as default", cfg.Skills[0].Name)
	}
	if len(cfg.SHA256()) != 64 || cfg.SHA256() != Digest(cfg.Raw()) {
		t.Errorf("SHA256() = %q does not match Digest of the raw bytes", cfg.SHA256())
	}
}

func TestParseReportsProblemsWithPosition(t *testing.T) {
	tests := []struct {
		name       string
		config     string
		wantKey    string
		wantLine   int
		wantColumn int
		wantText   string
	}{
		{
			name:     "unknown key",
			config:   "[agent]\nname = \"a\"\ncolour = \"blue\"\n",
			wantKey:  "agent.colour",
			wantLine: 3, wantColumn: 1, wantText: `unknown key "agent.colour"`,
		},
		{
			name:     "wrong type",
			config:   "[agent]\nname = \"a\"\n[server]\nhttp_port = \"eighty\"\n",
			wantLine: 4, wantText: "http_port",
		},
		{
			name:     "syntax error",
			config:   "[agent\nname = \"a\"\n",
			wantLine: 1, wantText: "",
		},
		{
			name:     "missing name",
			config:   "[agent]\ndescription = \"no name\"\n",
			wantKey:  "agent.name",
			wantLine: 1, wantColumn: 1, wantText: "agent.name is required",
		},
		{
			name:     "name with a variable",
			config:   "[agent]\nname = \"${WHO}\"\n",
			wantKey:  "agent.name",
			wantLine: 2, wantColumn: 1, wantText: "must be literal",
		},
		{
			name:     "port out of range",
			config:   "[agent]\nname = \"a\"\n[server]\nhttp_port = 70000\n",
			wantKey:  "server.http_port",
			wantLine: 4, wantColumn: 1, wantText: "not a TCP port",
		},
		{
			name:     "unknown handler",
			config:   "[agent]\nname = \"a\"\n[handler]\ntype = \"magic\"\n",
			wantKey:  "handler.type",
			wantLine: 4, wantColumn: 1, wantText: `"magic"`,
		},
		{
			name:     "llm without endpoint",
			config:   "[agent]\nname = \"a\"\n[handler]\ntype = \"llm\"\n",
			wantKey:  "handler.llm",
			wantText: "base_url and model",
		},
		{
			name:     "duplicate skill",
			config:   "[agent]\nname = \"a\"\n[[skills]]\nid = \"x\"\n[[skills]]\nid = \"x\"\n",
			wantKey:  "skills[1].id",
			wantText: `skill id "x" is used twice`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.config))
			var cerr *Error
			if !errors.As(err, &cerr) || len(cerr.Problems) == 0 {
				t.Fatalf("Parse() error = %v, want a *Error with problems", err)
			}
			p := cerr.Problems[0]
			if tt.wantKey != "" && p.Key != tt.wantKey {
				t.Errorf("key = %q, want %q", p.Key, tt.wantKey)
			}
			if tt.wantLine != 0 && p.Line != tt.wantLine {
				t.Errorf("line = %d, want %d (%s)", p.Line, tt.wantLine, p)
			}
			if tt.wantColumn != 0 && p.Column != tt.wantColumn {
				t.Errorf("column = %d, want %d (%s)", p.Column, tt.wantColumn, p)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not mention %q", err, tt.wantText)
			}
		})
	}
}

func TestParseRefusesOversizedConfig(t *testing.T) {
	raw := []byte("[agent]\nname = \"a\"\n#" + strings.Repeat("x", MaxConfigBytes))
	if _, err := Parse(raw); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Fatalf("Parse() error = %v, want a size error", err)
	}
}

func TestSlug(t *testing.T) {
	tests := map[string]string{
		"Echo Agent (EU)":          "echo-agent-eu",
		"  leading and trailing  ": "leading-and-trailing",
		"already-a-slug":           "already-a-slug",
		"UPPER__case--dash":        "upper-case-dash",
		"日本":                       "",
		"agent 2":                  "agent-2",
		strings.Repeat("ab-", 40):  strings.TrimRight(strings.Repeat("ab-", 21), "-"),
	}
	for in, want := range tests {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
