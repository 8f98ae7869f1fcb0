package agentconfig

import (
	"errors"
	"fmt"
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
			wantLine: 3, wantColumn: 1,
			wantText: `unknown key "agent.colour": [agent] takes name, id, description, version, documentation_url, provider (table)`,
		},
		{
			name:     "unknown key in an array of tables",
			config:   "[agent]\nname = \"a\"\n[[skills]]\nid = \"x\"\nlabel = \"y\"\n",
			wantKey:  "skills.label",
			wantLine: 5, wantColumn: 1,
			wantText: `unknown key "skills.label": [[skills]] takes id, name, description, tags, examples, input_modes, output_modes`,
		},
		{
			name:     "unknown table",
			config:   "[agent]\nname = \"a\"\n[logging]\nlevel = 1\n",
			wantText: `the top level takes agent (table), server (table), handler (table), skills (array of tables), auth (table), card (table), tasks (table), runtime (table)`,
		},
		{
			name:     "wrong type",
			config:   "[agent]\nname = \"a\"\n[server]\nhttp_port = \"eighty\"\n",
			wantLine: 4, wantText: "server.http_port: expected an integer, got a string",
		},
		{
			name:     "a string where an array belongs",
			config:   "[agent]\nname = \"a\"\n[[skills]]\nid = \"x\"\ntags = \"one\"\n",
			wantLine: 5, wantText: "skills.tags: expected an array of strings, got a string",
		},
		{
			name:     "a value where a table belongs",
			config:   "[agent]\nname = \"a\"\nprovider = \"Example\"\n",
			wantLine: 3, wantText: "agent.provider: expected a table, got a string",
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
			wantLine: 6, wantColumn: 1, wantText: `skill id "x" is used twice`,
		},
		{
			name:     "duplicate skill in an inline array",
			config:   "agent = { name = \"a\" }\n\nskills = [\n  { id = \"x\" },\n\n  { name = \"y\", id = \"x\" },\n]\n",
			wantKey:  "skills[1].id",
			wantLine: 6, wantColumn: 17, wantText: `skill id "x" is used twice`,
		},
		{
			name:     "skill without id points at its header",
			config:   "[agent]\nname = \"a\"\n[[skills]]\nid = \"x\"\n\n  [[ skills ]]\nname = \"y\"\n",
			wantKey:  "skills[1].id",
			wantLine: 6, wantColumn: 3, wantText: "skill 2 has no id",
		},
		{
			name:     "missing name below a header with a comment",
			config:   "# the agent\n\n[agent] # who it is\ndescription = \"no name\"\n",
			wantKey:  "agent.name",
			wantLine: 3, wantColumn: 1, wantText: "agent.name is required",
		},
		{
			name:     "root-level dotted key",
			config:   "description = 1\n",
			wantLine: 1, wantText: "description",
		},
		{
			name:     "name with a variable in a root-level dotted key",
			config:   "# agent\nagent.name = \"${WHO}\"\n",
			wantKey:  "agent.name",
			wantLine: 2, wantColumn: 7, wantText: "must be literal",
		},
		{
			name:     "missing name of a table named by a dotted key",
			config:   "\nagent.description = \"no name\"\n",
			wantKey:  "agent.name",
			wantLine: 2, wantColumn: 1, wantText: "agent.name is required",
		},
		{
			name:     "host with a variable",
			config:   "[agent]\nname = \"a\"\n[server]\n  host = \"${HOST}\"\n",
			wantKey:  "server.host",
			wantLine: 4, wantColumn: 3, wantText: "server.host must be literal: the runtime must know where the agent listens",
		},
		{
			name:     "advertised URL with a variable",
			config:   "[agent]\nname = \"a\"\n[server]\nadvertised_url = \"http://${PUBLIC_HOST}:8080/\"\n",
			wantKey:  "server.advertised_url",
			wantLine: 4, wantColumn: 1, wantText: "server.advertised_url must be literal: the runtime must know what URL the agent advertises",
		},
		{
			name:     "advertised URL without a scheme",
			config:   "[agent]\nname = \"a\"\n[server]\nadvertised_url = \"localhost:8080\"\n",
			wantKey:  "server.advertised_url",
			wantLine: 4, wantColumn: 1, wantText: `server.advertised_url "localhost:8080" is not an absolute http(s) URL`,
		},
		{
			name:     "advertised URL of another scheme",
			config:   "[agent]\nname = \"a\"\n[server]\nadvertised_url = \"ftp://127.0.0.1/\"\n",
			wantKey:  "server.advertised_url",
			wantText: "not an absolute http(s) URL",
		},
		{
			name:     "provider without url",
			config:   "[agent]\nname = \"a\"\n\n[agent.provider]\norganization = \"Example\"\n",
			wantKey:  "agent.provider",
			wantLine: 4, wantColumn: 1, wantText: "needs both organization and url",
		},
		{
			name:     "inline provider without organization",
			config:   "[agent]\nname = \"a\"\nprovider = { url = \"https://example.com\" }\n",
			wantKey:  "agent.provider",
			wantLine: 3, wantColumn: 1, wantText: "needs both organization and url",
		},
		{
			name:     "llm base URL that is not a URL",
			config:   "[agent]\nname = \"a\"\n[handler]\ntype = \"llm\"\n[handler.llm]\nmodel = \"m\"\nbase_url = \"api.openai.com/v1\"\n",
			wantKey:  "handler.llm.base_url",
			wantLine: 7, wantColumn: 1, wantText: `handler.llm.base_url "api.openai.com/v1" is not an absolute http(s) URL`,
		},
		{
			name:     "echo reply that is neither task nor message",
			config:   "[agent]\nname = \"a\"\n[handler.echo]\nreply = \"artifact\"\n",
			wantKey:  "handler.echo.reply",
			wantLine: 4, wantColumn: 1, wantText: `handler.echo.reply "artifact" is not one of "task", "message"`,
		},
		{
			name:     "task retention that is not a duration",
			config:   "[agent]\nname = \"a\"\n\n[tasks]\nmax_count = 10\nretention = \"forever\"\n",
			wantKey:  "tasks.retention",
			wantLine: 6, wantColumn: 1, wantText: `tasks.retention "forever" is not a positive duration`,
		},
		{
			name:     "task count below one",
			config:   "[agent]\nname = \"a\"\n[tasks]\nmax_count = -1\n",
			wantKey:  "tasks.max_count",
			wantLine: 4, wantColumn: 1, wantText: "tasks.max_count -1 must be at least 1",
		},
		{
			name:     "no room for a single llm call",
			config:   "[agent]\nname = \"a\"\n[handler]\ntype = \"llm\"\n[handler.llm]\nbase_url = \"https://x.example/v1\"\nmodel = \"m\"\nmax_concurrent_calls = -2\n",
			wantKey:  "handler.llm.max_concurrent_calls",
			wantLine: 8, wantColumn: 1, wantText: "must be at least 1",
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
			// An agent config is often shown below a Terraform snippet, so
			// a position must say it is one in the agent config.
			if p.Line > 0 && !strings.HasPrefix(p.String(), fmt.Sprintf("agent config line %d, column %d: ", p.Line, p.Column)) {
				t.Errorf("problem %q does not say where in the agent config it is", p)
			}
			if strings.Contains(err.Error(), "agentconfig.") || strings.Contains(err.Error(), "struct field") {
				t.Errorf("error %q shows Go internals", err)
			}
		})
	}
}

// TestParseLeavesReferencesToTheHost checks values known only at start are
// not judged by their written shape, and literal ones that are right pass.
func TestParseLeavesReferencesToTheHost(t *testing.T) {
	tests := map[string]string{
		"base URL from a variable": "[handler]\ntype = \"llm\"\n[handler.llm]\nbase_url = \"${LLM_URL:-https://api.openai.com/v1}\"\nmodel = \"m\"\n",
		"literal https base URL":   "[handler]\ntype = \"llm\"\n[handler.llm]\nbase_url = \"https://api.openai.com/v1\"\nmodel = \"m\"\n",
		"provider from variables":  "[agent.provider]\norganization = \"${ORG}\"\nurl = \"${ORG_URL}\"\n",
		"literal advertised URL":   "[server]\nhost = \"0.0.0.0\"\nadvertised_url = \"https://agent.example.com/a2a\"\n",
		"references elsewhere":     "[agent]\ndescription = \"${WHAT}\"\n[auth]\nbearer_token = \"${TOKEN}\"\n",
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte("[agent]\nname = \"a\"\n" + strings.Replace(body, "[agent]\n", "", 1))); err != nil {
				t.Fatalf("Parse() = %v, want no error", err)
			}
		})
	}
}

// TestInvalidLocatesKeys checks problems found outside Parse are located
// like Parse's own, falling back to the nearest table the config writes.
func TestInvalidLocatesKeys(t *testing.T) {
	cfg, err := Parse([]byte("[agent]\nname = \"a\"\n\n[card]  # signing\n  signing_key = \"k\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key              string
		wantLine, wantCo int
	}{
		{"card.signing_key", 5, 3},
		{"card.other", 4, 1},
		{"agent", 1, 1},
		{"auth.bearer_token", 0, 0},
	}
	for _, tt := range tests {
		p := cfg.Invalid(tt.key, "m").Problems[0]
		if p.Line != tt.wantLine || p.Column != tt.wantCo || p.Key != tt.key {
			t.Errorf("Invalid(%q) at %d:%d key %q, want %d:%d", tt.key, p.Line, p.Column, p.Key, tt.wantLine, tt.wantCo)
		}
	}
}

func TestParseRefusesOversizedConfig(t *testing.T) {
	raw := []byte("[agent]\nname = \"a\"\n#" + strings.Repeat("x", MaxConfigBytes))
	if _, err := Parse(raw); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Fatalf("Parse() error = %v, want a size error", err)
	}
}

// TestParseReportsEveryProblemInOneRun checks that problems of different
// kinds (unknown keys, values of the wrong type, failed validation) come
// together, each where it is written, so that one run shows them all.
func TestParseReportsEveryProblemInOneRun(t *testing.T) {
	type located struct {
		line, column int
		text         string
	}
	tests := []struct {
		name   string
		config string
		want   []located
	}{
		{
			name:   "unknown keys, a wrong type and a bad value",
			config: "[agent]\nname = \"a\"\ndescripton = \"d\"\n[server]\nhttp_port = \"x\"\nhots = \"h\"\n[handler]\ntype = \"magic\"\n", //nolint:misspell // a typo on purpose: suggestions for typos are under test
			want: []located{
				{3, 1, `unknown key "agent.descripton": did you mean "description"? [agent] takes name,`},
				{5, 13, "server.http_port: expected an integer, got a string"},
				{6, 1, `unknown key "server.hots": did you mean "host"? [server] takes host,`},
				{8, 1, `handler.type "magic" is not one of "echo", "llm"`},
			},
		},
		{
			name:   "wrong types in tables, an array and an inline table, and an unknown table",
			config: "agent = { name = \"a\", version = 2 }\n[tasks]\nmax_count = \"x\"\n[[skills]]\nid = \"s\"\ntags = [\"a\", 2]\n[agnet]\n",
			want: []located{
				{1, 33, "agent.version: expected a string, got an integer"},
				{3, 13, "tasks.max_count: expected an integer, got a string"},
				{6, 14, "skills.tags: expected an array of strings, got an integer"},
				{7, 2, `unknown key "agnet": did you mean "agent"? the top level takes agent (table),`},
			},
		},
		{
			// The value left out for its type is not reported again as
			// missing: the llm table lacks no model, it has a wrong one.
			name:   "a value of the wrong type is not also missing",
			config: "[agent]\nname = 1\n[handler]\ntype = \"llm\"\n[handler.llm]\nmodel = 1\nbase_url = \"http://x\"\n[runtime]\nenv = { A = \"a\", B = 2 }\n",
			want: []located{
				{2, 8, "agent.name: expected a string, got an integer"},
				{6, 9, "handler.llm.model: expected a string, got an integer"},
				{9, 22, "runtime.env.B: expected a string, got an integer"},
			},
		},
		{
			name:   "several skills",
			config: "[agent]\nname = \"a\"\n[[skills]]\nid = 1\n[[skills]]\nid = \"x\"\nlabel = \"l\"\n[[skills]]\nid = \"x\"\n",
			want: []located{
				{4, 6, "skills.id: expected a string, got an integer"},
				{7, 1, `unknown key "skills.label": [[skills]] takes`},
				{9, 1, `skill id "x" is used twice`},
			},
		},
		{
			// The keys below a header that does not belong go with it,
			// rather than land in the table before it.
			name:   "a table where a value belongs",
			config: "[agent]\nname = \"a\"\n[server.http_port]\nport = 1\n[tasks]\nmax_count = \"x\"\n[[card]]\nsigning_key = 1\n",
			want: []located{
				{3, 2, "server.http_port: expected an integer, got a table"},
				{6, 13, "tasks.max_count: expected an integer, got a string"},
				{7, 3, "card: expected a table, got an array of tables"},
			},
		},
		{
			// A syntax error ends what the parser can read; what came
			// before it is still reported.
			name:   "a wrong type before a syntax error",
			config: "[agent]\nname = 1\n[server\nhttp_port = \"x\"\n",
			want: []located{
				{2, 8, "agent.name: expected a string, got an integer"},
				{3, 8, "expected ']' to close table name"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.config))
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Parse() error = %v, want a *Error", err)
			}
			if len(cerr.Problems) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(cerr.Problems), len(tt.want), strings.ReplaceAll(err.Error(), "; ", "\n"))
			}
			for i, want := range tt.want {
				p := cerr.Problems[i]
				if p.Line != want.line || p.Column != want.column || !strings.Contains(p.Message, want.text) {
					t.Errorf("problem %d = %s, want line %d, column %d: %s", i+1, p, want.line, want.column, want.text)
				}
			}
		})
	}
}

func TestParseSuggestsKnownKeys(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"transposed letters", "[agent]\nnmae = \"a\"\n", `unknown key "agent.nmae": did you mean "name"?`}, //nolint:misspell // a typo on purpose: suggestions for typos are under test
		{"a hyphen for an underscore", "[agent]\nname = \"a\"\n[server]\nhttp-port = 80\n", `unknown key "server.http-port": did you mean "http_port"?`},
		{"an underscore left out", "[agent]\nname = \"a\"\n[card]\nsigningkey = \"k\"\n", `unknown key "card.signingkey": did you mean "signing_key"?`},
		{"an unknown table", "[agent]\nname = \"a\"\n[handler.lm]\nmodel = \"m\"\n", `unknown key "handler.lm": did you mean "llm"?`},
		{"an unknown table at the top", "[agnet]\nname = \"a\"\n", `unknown key "agnet": did you mean "agent"?`},
		{"in an array of tables", "[agent]\nname = \"a\"\n[[skills]]\nid = \"s\"\ntag = [\"t\"]\n", `unknown key "skills.tag": did you mean "tags"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.config))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse() error = %v, want it to say %s", err, tt.want)
			}
		})
	}
	// Nothing close: the message lists what the table takes, and guesses not.
	for _, config := range []string{
		"[agent]\nname = \"a\"\ncolour = \"blue\"\n",
		"[agent]\nname = \"a\"\n[logging]\nlevel = 1\n",
		"[agent]\nname = \"a\"\n[runtime]\nhost = \"h\"\n",
	} {
		if _, err := Parse([]byte(config)); err == nil || strings.Contains(err.Error(), "did you mean") {
			t.Errorf("Parse(%q) error = %v, want no suggestion", config, err)
		}
	}
}

func TestParseBoundsTheValuesOfTheWrongType(t *testing.T) {
	raw := "[agent]\nname = \"a\"\n[[skills]]\n" + strings.Repeat("id = 1\n[[skills]]\n", maxTypeProblems+5)
	_, err := Parse([]byte(raw))
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Parse() error = %v, want a *Error", err)
	}
	if n := len(cerr.Problems); n != maxTypeProblems+2 {
		t.Fatalf("got %d problems, want %d", n, maxTypeProblems+2)
	}
	if last := cerr.Problems[len(cerr.Problems)-1].Message; !strings.Contains(last, "rest of the config not checked") {
		t.Errorf("last problem %q does not say checking stopped", last)
	}
}
