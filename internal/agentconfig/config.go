// Package agentconfig reads the TOML agent config, the unit of deployment.
// One Config type is shared by the agent host, the card code and the runtime,
// so every part of the provider agrees on what a config means.
package agentconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Handler types the built-in agent host implements.
const (
	HandlerEcho = "echo"
	HandlerLLM  = "llm"
)

// DefaultHost is where an agent listens when the config names no host.
const DefaultHost = "127.0.0.1"

// MaxConfigBytes bounds a config so a runaway file cannot exhaust memory.
const MaxConfigBytes = 1 << 20

// Config is the parsed agent config. Field tags follow the TOML keys.
type Config struct {
	Agent   Agent    `toml:"agent"`
	Server  Server   `toml:"server"`
	Handler Handler  `toml:"handler"`
	Skills  []Skill  `toml:"skills"`
	Auth    Auth     `toml:"auth"`
	Card    Card     `toml:"card"`
	Runtime Runtime  `toml:"runtime"`
	raw     []byte   `toml:"-"`
	digest  [32]byte `toml:"-"`
}

// Agent describes the agent itself; its name is required and names the agent id.
type Agent struct {
	Name             string    `toml:"name"`
	Description      string    `toml:"description"`
	Version          string    `toml:"version"`
	DocumentationURL string    `toml:"documentation_url"`
	Provider         *Provider `toml:"provider"`
}

// Provider is the organisation that offers the agent.
type Provider struct {
	Organization string `toml:"organization"`
	URL          string `toml:"url"`
}

// Server says where the host listens and what URL it advertises.
type Server struct {
	Host          string `toml:"host"`
	HTTPPort      int    `toml:"http_port"`
	AdvertisedURL string `toml:"advertised_url"`
}

// Handler selects how the host answers messages.
type Handler struct {
	Type string `toml:"type"`
	LLM  *LLM   `toml:"llm"`
}

// LLM configures an OpenAI-compatible chat-completions endpoint.
type LLM struct {
	BaseURL      string `toml:"base_url"`
	Model        string `toml:"model"`
	APIKey       string `toml:"api_key"`
	SystemPrompt string `toml:"system_prompt"`
}

// Skill is one advertised skill of the agent.
type Skill struct {
	ID          string   `toml:"id"`
	Name        string   `toml:"name"`
	Description string   `toml:"description"`
	Tags        []string `toml:"tags"`
	Examples    []string `toml:"examples"`
	InputModes  []string `toml:"input_modes"`
	OutputModes []string `toml:"output_modes"`
}

// Auth protects the JSON-RPC endpoint; the card stays public.
type Auth struct {
	BearerToken string `toml:"bearer_token"`
}

// Card holds settings of the published card.
type Card struct {
	SigningKey string `toml:"signing_key"`
}

// Runtime holds settings only some adapters honour.
type Runtime struct {
	Image string `toml:"image"`
}

// Raw returns the bytes the config was parsed from.
func (c *Config) Raw() []byte { return c.raw }

// SHA256 returns the hex sha256 digest of the raw config, its provenance.
func (c *Config) SHA256() string { return hex.EncodeToString(c.digest[:]) }

// ID returns the agent id, the slug of the agent name.
func (c *Config) ID() string { return Slug(c.Agent.Name) }

// ListenHost returns the configured host or the default.
func (c *Config) ListenHost() string {
	if c.Server.Host == "" {
		return DefaultHost
	}
	return c.Server.Host
}

// Digest returns the hex sha256 of raw config bytes without parsing them.
func Digest(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Parse reads a config strictly: unknown keys, wrong types and missing
// required values are errors naming the line and column where possible.
// Variable references are left as written; the agent host expands them.
func Parse(raw []byte) (*Config, error) {
	if len(raw) > MaxConfigBytes {
		return nil, &Error{Problems: []Problem{{Message: fmt.Sprintf("config is %d bytes, more than the %d allowed", len(raw), MaxConfigBytes)}}}
	}
	var cfg Config
	dec := toml.NewDecoder(bytes.NewReader(raw)).DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, decodeError(err)
	}
	cfg.raw = append([]byte(nil), raw...)
	cfg.digest = sha256.Sum256(raw)
	cfg.applyDefaults()
	if problems := cfg.validate(raw); len(problems) > 0 {
		return nil, &Error{Problems: problems}
	}
	return &cfg, nil
}

func (c *Config) applyDefaults() {
	if c.Handler.Type == "" {
		c.Handler.Type = HandlerEcho
	}
	for i := range c.Skills {
		if c.Skills[i].Name == "" {
			c.Skills[i].Name = c.Skills[i].ID
		}
	}
}

func (c *Config) validate(raw []byte) []Problem {
	var problems []Problem
	add := func(key, msg string) {
		p := Problem{Key: key, Message: msg}
		p.Line, p.Column = locate(raw, key)
		problems = append(problems, p)
	}
	switch {
	case strings.TrimSpace(c.Agent.Name) == "":
		add("agent.name", "agent.name is required")
	case HasReference(c.Agent.Name):
		add("agent.name", "agent.name must be literal: it names the agent id, which must be known before the agent starts")
	case Slug(c.Agent.Name) == "":
		add("agent.name", fmt.Sprintf("agent.name %q has no letters or digits to form an agent id from", c.Agent.Name))
	}
	if p := c.Server.HTTPPort; p < 0 || p > 65535 {
		add("server.http_port", fmt.Sprintf("server.http_port %d is not a TCP port (1-65535, or omit it to let the runtime choose)", p))
	}
	switch c.Handler.Type {
	case HandlerEcho:
	case HandlerLLM:
		if c.Handler.LLM == nil || c.Handler.LLM.BaseURL == "" || c.Handler.LLM.Model == "" {
			add("handler.llm", `handler type "llm" needs [handler.llm] with base_url and model`)
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
	return problems
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
		return fmt.Sprintf("line %d, column %d: %s", p.Line, p.Column, p.Message)
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

func decodeError(err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		out := &Error{}
		for _, e := range strict.Errors {
			row, col := e.Position()
			out.Problems = append(out.Problems, Problem{
				Key: strings.Join(e.Key(), "."), Line: row, Column: col,
				Message: fmt.Sprintf("unknown key %q", strings.Join(e.Key(), ".")),
			})
		}
		return out
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		key := strings.Join(de.Key(), ".")
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if key != "" {
			msg = key + ": " + msg
		}
		return &Error{Problems: []Problem{{Key: key, Line: row, Column: col, Message: msg}}}
	}
	return &Error{Problems: []Problem{{Message: err.Error()}}}
}

// locate finds the line and column of the last key segment of a dotted key,
// so that semantic problems point at the place to edit. It is a best effort:
// a key that is absent yields the table header, or zero.
func locate(raw []byte, dotted string) (int, int) {
	segs := strings.Split(dotted, ".")
	leaf := segs[len(segs)-1]
	if i := strings.IndexByte(leaf, '['); i >= 0 {
		leaf = leaf[:i]
	}
	table := strings.Join(segs[:len(segs)-1], ".")
	lines := strings.Split(string(raw), "\n")
	current, headerLine := "", 0
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			current = strings.Trim(t, "[] ")
			if current == table || current == dotted {
				headerLine = i + 1
			}
			continue
		}
		if current == table && strings.HasPrefix(t, leaf) {
			rest := strings.TrimSpace(t[len(leaf):])
			if strings.HasPrefix(rest, "=") {
				return i + 1, strings.Index(line, leaf) + 1
			}
		}
	}
	if headerLine > 0 {
		return headerLine, 1
	}
	return 0, 0
}
