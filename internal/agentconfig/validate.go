package agentconfig

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// validate checks what decoding cannot: required values, ranges, shapes.
// Its problems are not located yet.
// A value holding a ${...} reference is known only when the agent starts,
// so its shape is left to the agent host; only the keys the runtime must
// know before the start refuse references outright.
func (c *Config) validate() []Problem {
	var found []Problem
	add := func(key, msg string) { found = append(found, Problem{Key: key, Message: msg}) }

	if err := checkName(c.Agent.Name); err != nil {
		add("agent.name", err.Error())
	}
	c.validateID(add)
	if err := c.Agent.Provider.Check(); err != nil {
		add("agent.provider", err.Error())
	}

	if HasReference(c.Server.Host) {
		add("server.host", "server.host must be literal: the runtime must know where the agent listens before it starts "+
			"(the runtime sets HOST for the agent itself; omit server.host to listen on "+DefaultHost+")")
	}
	if p := c.Server.HTTPPort; p < 0 || p > 65535 {
		add("server.http_port", fmt.Sprintf("server.http_port %d is not a TCP port (1-65535, or omit it to let the runtime choose)", p))
	}
	switch u := c.Server.AdvertisedURL; {
	case HasReference(u):
		add("server.advertised_url", "server.advertised_url must be literal: the runtime must know what URL the agent advertises before it starts")
	case u != "":
		if err := CheckHTTPURL("server.advertised_url", u, "http://127.0.0.1:8080/"); err != nil {
			add("server.advertised_url", err.Error())
		}
	}

	if problem := checkBindings(c.Server.Bindings, c.raw); problem != "" {
		add("server.bindings", problem)
	}

	switch r := c.Handler.Echo.Reply; r {
	case EchoReplyTask, EchoReplyMessage:
	default:
		add("handler.echo.reply", fmt.Sprintf("handler.echo.reply %q is not one of %q, %q", r, EchoReplyTask, EchoReplyMessage))
	}
	if l := c.Handler.LLM; l != nil && l.MaxConcurrentCalls < 1 {
		add("handler.llm.max_concurrent_calls", fmt.Sprintf("handler.llm.max_concurrent_calls %d must be at least 1", l.MaxConcurrentCalls))
	}
	if n := c.Tasks.MaxCount; n < 1 {
		add("tasks.max_count", fmt.Sprintf("tasks.max_count %d must be at least 1", n))
	}
	if d, err := time.ParseDuration(c.Tasks.Retention); err != nil || d <= 0 {
		add("tasks.retention", fmt.Sprintf("tasks.retention %q is not a positive duration such as \"30m\" or \"24h\"", c.Tasks.Retention))
	}
	if problem := checkTaskStore(c.Tasks.Store); problem != "" {
		add("tasks.store", problem)
	}

	c.validateJWT(add)
	c.validateTelemetry(add)
	c.validateRuntime(add)
	switch c.Handler.Type {
	case "":
		// A brought agent: validateRuntime has refused any [handler].
	case HandlerEcho:
	case HandlerLLM:
		if err := c.Handler.LLM.Check(); err != nil {
			add("handler.llm", err.Error())
		} else if u := c.Handler.LLM.BaseURL; !HasReference(u) {
			if err := CheckHTTPURL("handler.llm.base_url", u, "https://api.openai.com/v1"); err != nil {
				add("handler.llm.base_url", err.Error())
			}
		}
	default:
		add("handler.type", fmt.Sprintf("handler.type %q is not one of %q, %q", c.Handler.Type, HandlerEcho, HandlerLLM))
	}

	seen := map[string]bool{}
	for i, s := range c.Skills {
		key := fmt.Sprintf("skills[%d].id", i)
		switch {
		case s.ID == "":
			add(key, fmt.Sprintf("skill %d has no id", i+1))
		case seen[s.ID]:
			add(key, fmt.Sprintf("skill id %q is used twice", s.ID))
		}
		seen[s.ID] = true
	}
	return found
}

// Check reports a provider that names only one of organization and url:
// an agent card requires both. No [agent.provider] table (nil) is fine.
func (p *Provider) Check() error {
	if p == nil || (p.Organization != "" && p.URL != "") {
		return nil
	}
	return errors.New("[agent.provider] needs both organization and url, which an agent card requires; set both or remove the table")
}

// Check reports an llm handler without the endpoint and model it calls.
func (l *LLM) Check() error {
	if l == nil || l.BaseURL == "" || l.Model == "" {
		return fmt.Errorf("handler type %q needs [handler.llm] with base_url and model", HandlerLLM)
	}
	return nil
}

// CheckHTTPURL reports a value of key that is not an absolute http or https
// URL; example shows the operator one that is.
func CheckHTTPURL(key, value, example string) error {
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q is not an absolute http(s) URL such as %s", key, value, example)
	}
	return nil
}

// Invalid returns the error for one problem with the value of key, located
// where the config writes it. Checks made outside this package (such as
// whether a signing key parses) report through it, so that every problem
// with a config reads alike.
func (c *Config) Invalid(key, message string) *Error {
	return c.locate([]Problem{{Key: key, Message: message}})
}

// locate fills in where each problem's key is written.
func (c *Config) locate(problems []Problem) *Error {
	index := newKeyIndex(c.raw)
	for i := range problems {
		problems[i].Line, problems[i].Column = index.locate(problems[i].Key)
	}
	return &Error{Problems: problems}
}

// Problem is one thing wrong with a config, located where possible.
type Problem struct {
	Key     string
	Line    int
	Column  int
	Message string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("agent config line %d, column %d: %s", p.Line, p.Column, p.Message)
	}
	return p.Message
}

// Error lists every problem found in a config.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "invalid agent config: " + strings.Join(parts, "; ")
}

// checkBindings says what is wrong with [server] bindings, or "": each
// must be a standard binding, named once; written, the list may not be
// empty, since an agent that serves nothing is no agent.
func checkBindings(bindings []string, raw []byte) string {
	if len(bindings) == 0 {
		if _, written := newKeyIndex(raw).offsets["server.bindings"]; written {
			return fmt.Sprintf("server.bindings is empty: name at least one of %q, or remove it to serve all of them", DefaultBindings)
		}
		return ""
	}
	seen := map[string]bool{}
	for _, b := range bindings {
		switch {
		case !slices.Contains(DefaultBindings, b):
			return fmt.Sprintf("server.bindings: %q is not one of %q (names are written as cards write them)", b, DefaultBindings)
		case seen[b]:
			return fmt.Sprintf("server.bindings names %q twice", b)
		}
		seen[b] = true
	}
	return ""
}
