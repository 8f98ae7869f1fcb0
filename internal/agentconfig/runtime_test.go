package agentconfig

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestRuntimeProblems checks each mistake in [runtime] is refused where it
// is written, and that a brought agent refuses the card-only tables.
func TestRuntimeProblems(t *testing.T) {
	const head = "[agent]\nname = \"a\"\n"
	const cmd = "[runtime]\ncommand = [\"./agent\"]\n"
	tests := []struct {
		name, config, key string
		line, column      int
		text              string
	}{
		{"empty command", head + "[runtime]\ncommand = []\n", "runtime.command", 4, 1, "needs the program to run"},
		{"program from a variable", head + "[runtime]\ncommand = [\"${AGENT}\", \"serve\"]\n", "runtime.command", 4, 1, "must be literal"},
		{"command of the wrong type", head + "[runtime]\ncommand = \"./agent --port 1\"\n", "runtime.command", 4, 11, "expected an array of strings, got a string"},
		{"unknown pull policy", head + "[runtime]\nimage = \"x\"\npull = \"sometimes\"\n", "runtime.pull", 5, 1, `"sometimes" is not one of "missing", "always", "never"`},
		{"pull without image", head + cmd + "pull = \"never\"\n", "runtime.pull", 5, 1, "applies to runtime.image only"},
		{"port out of range", head + cmd + "port = 70000\n", "runtime.port", 5, 1, "70000 is not a TCP port"},
		{"relative card path", head + cmd + "card_path = \"card.json\"\n", "runtime.card_path", 5, 1, "starting with /"},
		{"env name", head + cmd + "[runtime.env]\n\"1ST\" = \"x\"\n", "runtime.env.1ST", 6, 1, "not an environment variable name"},
		{"env owned by the runtime", head + cmd + "[runtime.env]\nPORT = \"1\"\n", "runtime.env.PORT", 6, 1, "may not set PORT"},
		{"working dir from a variable", head + cmd + "working_dir = \"${DIR}\"\n", "runtime.working_dir", 5, 1, "must be literal"},
		{"skills for a brought agent", head + cmd + "[[skills]]\nid = \"s\"\n", "skills", 5, 1, "[[skills]] shapes the card the built-in host derives; this agent runs from runtime.command"},
		{"handler for an image", head + "[handler]\ntype = \"echo\"\n[runtime]\nimage = \"x\"\n", "handler", 3, 1, "serves its own card"},
		{"auth for a brought agent", head + "[auth]\nbearer_token = \"${T}\"\n" + cmd, "auth", 3, 1, "[auth] protects the built-in host"},
		{"card for a brought agent", head + cmd + "[card]\nsigning_key = \"k\"\n", "card", 5, 1, "[card] signs the card"},
		{"tasks for a brought agent", head + cmd + "[tasks]\nmax_count = 5\n", "tasks", 5, 1, "[tasks] bounds the tasks the built-in host keeps"},
		{"echo reply for a brought agent", head + cmd + "[handler.echo]\nreply = \"message\"\n", "handler", 5, 2, "[handler] chooses how the built-in host answers"},
		{"card path for the built-in host", head + "[runtime]\ncard_path = \"/card\"\n", "runtime.card_path", 4, 1, "the built-in host needs none of it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.config))
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Parse() = %v, want a *Error", err)
			}
			i := slices.IndexFunc(cerr.Problems, func(p Problem) bool { return p.Key == tt.key || strings.HasPrefix(p.Key, tt.key+".") })
			if i < 0 {
				t.Fatalf("no problem with %s in %v", tt.key, err)
			}
			p := cerr.Problems[i]
			if p.Line != tt.line || p.Column != tt.column || !strings.Contains(p.Message, tt.text) {
				t.Errorf("problem %q at %d:%d, want %q at %d:%d", p.Message, p.Line, p.Column, tt.text, tt.line, tt.column)
			}
		})
	}
}

// TestRuntimeAccepted checks the shapes of brought agents that are fine.
func TestRuntimeAccepted(t *testing.T) {
	for name, config := range map[string]string{
		"program with placeholders": "[runtime]\ncommand = [\"./agent\", \"--port\", \"${PORT}\", \"--url\", \"${A2A_ADVERTISED_URL}\"]\nworking_dir = \"agents\"\n[runtime.env]\nLOG_LEVEL = \"debug\"\n",
		"image run as is":           "[runtime]\nimage = \"example/agent:1\"\npull = \"never\"\nport = 9999\ncard_path = \"/.well-known/agent.json\"\n",
		"image with a command":      "[runtime]\nimage = \"example/agent:1\"\ncommand = [\"/agent\", \"serve\"]\n",
		"description kept":          "[agent]\ndescription = \"d\"\n[runtime]\ncommand = [\"agent\"]\n",
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := Parse([]byte("[agent]\nname = \"a\"\n" + strings.Replace(config, "[agent]\n", "", 1)))
			if err != nil {
				t.Fatal(err)
			}
			if !cfg.Runtime.Brought() || cfg.Handler.Type != "" {
				t.Errorf("external %v, handler %q: want a brought agent without handler", cfg.Runtime.Brought(), cfg.Handler.Type)
			}
		})
	}
}

// TestRuntimeExpanded checks placeholders and allowed variables are filled
// in, and an unset one without default is named.
func TestRuntimeExpanded(t *testing.T) {
	rt := Runtime{Command: []string{"./agent", "--port=${PORT}", "${GREETING:-hi}"}, Env: map[string]string{"URL": "${A2A_ADVERTISED_URL}/x", "K": "${KEY}"}}
	vars := map[string]string{"PORT": "8080", "A2A_ADVERTISED_URL": "http://h:1", "KEY": "v"}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	cmd, env, err := rt.Expanded(lookup)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cmd, []string{"./agent", "--port=8080", "hi"}) || env["URL"] != "http://h:1/x" || env["K"] != "v" {
		t.Errorf("Expanded = %q, %v", cmd, env)
	}
	delete(vars, "KEY")
	if _, _, err := rt.Expanded(lookup); err == nil || !strings.Contains(err.Error(), "KEY") {
		t.Errorf("Expanded with KEY unset = %v, want an error naming KEY", err)
	}
}

func TestCardPaths(t *testing.T) {
	if got := (Runtime{}).CardPaths(); !slices.Equal(got, []string{DefaultCardPath, LegacyCardPath}) {
		t.Errorf("default card paths %q", got)
	}
	if got := (Runtime{CardPath: "/card"}).CardPaths(); !slices.Equal(got, []string{"/card"}) {
		t.Errorf("configured card paths %q", got)
	}
}

func TestListenPort(t *testing.T) {
	for _, tt := range []struct {
		rt   Runtime
		want int
	}{
		{Runtime{}, 8080},
		{Runtime{Image: "agent:1"}, 8080},
		{Runtime{Image: "agent:1", Port: 9999}, 9999},
	} {
		if got := tt.rt.ListenPort(8080); got != tt.want {
			t.Errorf("%+v.ListenPort(8080) = %d, want %d", tt.rt, got, tt.want)
		}
	}
}
