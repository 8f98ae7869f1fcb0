package agentconfig

import (
	"fmt"
	"sort"
	"strings"
)

// Variables the runtime sets for every agent and fills in wherever an
// brought agent's command or [runtime.env] references them.
const (
	PortVar          = "PORT"
	HostVar          = "HOST"
	AdvertisedURLVar = "A2A_ADVERTISED_URL"
)

// DefaultCardPath is where an agent serves its card under A2A 1.0;
// LegacyCardPath is where an A2A 0.3 agent serves it.
const (
	DefaultCardPath = "/.well-known/agent-card.json"
	LegacyCardPath  = "/.well-known/agent.json"
)

// builtInOnly are the tables only the built-in host reads: a brought
// agent serves its own card and keeps its own tasks, so they would
// silently do nothing for it.
var builtInOnly = []struct{ key, what, does string }{
	{"skills", "[[skills]]", "shapes the card the built-in host derives"},
	{"handler", "[handler]", "chooses how the built-in host answers"},
	{"auth", "[auth]", "protects the built-in host and shapes its card"},
	{"card", "[card]", "signs the card the built-in host derives"},
	{"tasks", "[tasks]", "bounds the tasks the built-in host keeps"},
	{"server.bindings", "server.bindings", "chooses the protocol bindings the built-in host serves"},
	{"telemetry", "[telemetry]", "says where the built-in host reports its traces and metrics"},
}

// CardPaths returns the paths to look for the agent's card at, in order:
// the configured card_path, else the 1.0 path and then the 0.3 one.
func (r Runtime) CardPaths() []string {
	if r.CardPath != "" {
		return []string{r.CardPath}
	}
	return []string{DefaultCardPath, LegacyCardPath}
}

// ListenPort is the port the agent listens on inside a container or pod:
// [runtime] port, else fallback, the adapter's port for the built-in host,
// which brought images get too unless they name their own.
func (r Runtime) ListenPort(fallback int) int {
	if r.Port != 0 {
		return r.Port
	}
	return fallback
}

// validateRuntime checks the [runtime] table and, for a brought agent,
// that no table meant for the built-in host's card is set.
func (c *Config) validateRuntime(add func(key, msg string)) {
	rt := c.Runtime
	if rt.Command != nil {
		switch {
		case len(rt.Command) == 0 || strings.TrimSpace(rt.Command[0]) == "":
			add("runtime.command", `runtime.command needs the program to run as its first element, e.g. ["./agent", "--port", "${PORT}"]`)
		case HasReference(rt.Command[0]):
			add("runtime.command", "runtime.command's program (its first element) must be literal: the runtime finds it before the agent starts")
		}
	}
	switch rt.Pull {
	case "", PullMissing, PullAlways, PullNever:
		if rt.Pull != "" && rt.Image == "" {
			add("runtime.pull", "runtime.pull applies to runtime.image only: set image, or remove pull")
		}
	default:
		add("runtime.pull", fmt.Sprintf("runtime.pull %q is not one of %q, %q, %q", rt.Pull, PullMissing, PullAlways, PullNever))
	}
	if rt.Port < 0 || rt.Port > 65535 {
		add("runtime.port", fmt.Sprintf("runtime.port %d is not a TCP port (1-65535)", rt.Port))
	}
	if p := rt.CardPath; p != "" && (!strings.HasPrefix(p, "/") || HasReference(p) || strings.ContainsAny(p, "?# ")) {
		add("runtime.card_path", fmt.Sprintf("runtime.card_path %q must be a literal URL path starting with /, such as %s", p, DefaultCardPath))
	}
	if HasReference(rt.WorkingDir) {
		add("runtime.working_dir", "runtime.working_dir must be literal: the runtime needs it before the agent starts")
	}
	names := make([]string, 0, len(rt.Env))
	for name := range rt.Env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		switch {
		case name == PortVar || name == HostVar || name == AdvertisedURLVar:
			add("runtime.env."+name, fmt.Sprintf("runtime.env may not set %s: the runtime sets it to where the agent listens and is reached", name))
		case !ValidEnvName(name):
			add("runtime.env."+name, fmt.Sprintf("runtime.env key %q is not an environment variable name (letters, digits and _, not starting with a digit)", name))
		}
	}
	written := newKeyIndex(c.raw).offsets
	if !rt.Brought() {
		for _, key := range []string{"runtime.card_path", "runtime.env", "runtime.port", "runtime.working_dir"} {
			if _, ok := written[key]; ok {
				add(key, key+" applies to an agent the runtime runs from runtime.command or runtime.image; the built-in host needs none of it")
			}
		}
		return
	}
	for _, t := range builtInOnly {
		if _, ok := written[t.key]; ok {
			add(t.key, t.what+" "+t.does+"; this agent runs from runtime.command or runtime.image and serves its own card, "+
				"so "+t.what+" would do nothing: remove it, and describe the agent in the card it serves")
		}
	}
}

// Expanded returns the command and [runtime.env] of a brought agent with
// every reference replaced from lookup, which the runtime gives PORT, HOST,
// A2A_ADVERTISED_URL and the allowlisted variables. An unset variable with
// no default is an error naming it, never a silently empty value.
func (r Runtime) Expanded(lookup Lookup) (command []string, env map[string]string, err error) {
	x := expander{lookup: lookup}
	command = make([]string, len(r.Command))
	for i, arg := range r.Command {
		command[i] = x.expand(arg)
	}
	env = make(map[string]string, len(r.Env))
	for name, value := range r.Env {
		env[name] = x.expand(value)
	}
	return command, env, x.err()
}
