// Package agentconfig reads the TOML agent config, the unit of deployment.
// One Config type is shared by the agent host, the card code and the runtime,
// so every part of the provider agrees on what a config means.
package agentconfig

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"
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
	Agent   Agent   `toml:"agent"`
	Server  Server  `toml:"server"`
	Handler Handler `toml:"handler"`
	Skills  []Skill `toml:"skills"`
	Auth    Auth    `toml:"auth"`
	Card    Card    `toml:"card"`
	Tasks   Tasks   `toml:"tasks"`
	Runtime Runtime `toml:"runtime"`
	// Telemetry is where the built-in host reports traces and metrics;
	// nowhere unless the table names a place.
	Telemetry Telemetry `toml:"telemetry"`
	raw       []byte    `toml:"-"`
	digest    [32]byte  `toml:"-"`
}

// Agent describes the agent itself. Its name is required; the agent id is
// ID when set, else the slug of the name.
type Agent struct {
	Name             string    `toml:"name"`
	ID               string    `toml:"id"`
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
	// Bindings are the A2A protocol bindings the built-in host serves, in
	// the order of preference its card lists them; empty means all of
	// them, in DefaultBindings' order.
	Bindings []string `toml:"bindings"`
}

// The A2A protocol bindings, as cards name them.
const (
	BindingJSONRPC  = "JSONRPC"
	BindingHTTPJSON = "HTTP+JSON"
	BindingGRPC     = "GRPC"
)

// DefaultBindings are the bindings the built-in host serves when the
// config names none: every standard one, JSON-RPC first since every A2A
// client speaks it.
var DefaultBindings = []string{BindingJSONRPC, BindingHTTPJSON, BindingGRPC}

// SameAddress reports whether two [server] tables put the agent at the
// same address: where it listens and what URL it advertises.
func (s Server) SameAddress(o Server) bool {
	return s.Host == o.Host && s.HTTPPort == o.HTTPPort && s.AdvertisedURL == o.AdvertisedURL
}

// ServedBindings returns the bindings the built-in host serves, in order
// of preference.
func (s Server) ServedBindings() []string {
	if len(s.Bindings) == 0 {
		return DefaultBindings
	}
	return s.Bindings
}

// Handler selects how the host answers messages.
type Handler struct {
	Type string `toml:"type"`
	Echo Echo   `toml:"echo"`
	LLM  *LLM   `toml:"llm"`
}

// Ways the echo handler replies.
const (
	EchoReplyTask    = "task"
	EchoReplyMessage = "message"
)

// Echo configures the echo handler.
type Echo struct {
	// Reply is "task" (a completed task carrying the echo as an artifact,
	// the default) or "message" (a bare message, no task).
	Reply string `toml:"reply"`
}

// LLM configures an OpenAI-compatible chat-completions endpoint.
type LLM struct {
	BaseURL      string `toml:"base_url"`
	Model        string `toml:"model"`
	APIKey       string `toml:"api_key"`
	SystemPrompt string `toml:"system_prompt"`
	// MaxConcurrentCalls caps the calls in flight to the endpoint; further
	// tasks, up to four times as many, wait for a free slot.
	MaxConcurrentCalls int `toml:"max_concurrent_calls"`
}

// Defaults of the limits the host keeps.
const (
	DefaultMaxConcurrentCalls = 8
	DefaultMaxTasks           = 1000
	DefaultTaskRetention      = time.Hour
)

// Tasks bounds the tasks the host keeps for GetTask and ListTasks (the
// least recently updated finished ones go first) and says where it keeps
// them: in its memory, or in the PostgreSQL database Store names, which
// every host of the agent shares.
type Tasks struct {
	MaxCount  int    `toml:"max_count"`
	Retention string `toml:"retention"`
	// Store is a PostgreSQL connection string; empty keeps tasks in memory.
	Store string `toml:"store"`
}

// RetentionDuration is Retention parsed; validation has checked it.
func (t Tasks) RetentionDuration() time.Duration {
	d, err := time.ParseDuration(t.Retention)
	if err != nil {
		return DefaultTaskRetention
	}
	return d
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
	// Extended lists the skill only in the extended card, which the host
	// gives authenticated callers (GetExtendedAgentCard).
	Extended bool `toml:"extended"`
	// Scopes are the token scopes the skill is declared to need, with
	// [auth.jwt].
	Scopes []string `toml:"scopes"`
}

// HasExtendedSkills reports whether the extended card lists skills the
// public one does not.
func (c *Config) HasExtendedSkills() bool {
	for _, s := range c.Skills {
		if s.Extended {
			return true
		}
	}
	return false
}

// HasSkillScopes reports whether a skill names the scopes a caller needs
// to ask for it.
func (c *Config) HasSkillScopes() bool {
	for _, s := range c.Skills {
		if len(s.Scopes) > 0 {
			return true
		}
	}
	return false
}

// Auth protects the JSON-RPC endpoint; the card stays public.
type Auth struct {
	BearerToken string `toml:"bearer_token"`
	// JWT accepts bearer tokens an identity provider issues instead of
	// one static token.
	JWT *JWT `toml:"jwt"`
}

// Card holds settings of the published card.
type Card struct {
	SigningKey string `toml:"signing_key"`
	// V03Fields asks for the A2A 0.3 discovery fields beside the 1.0 ones,
	// so that 0.3 clients find the agent from its card. The 1.0 schema
	// forbids them, so strict 1.0 readers may refuse such a card: it is
	// the agent's choice, never the default.
	V03Fields bool `toml:"v03_fields"`
}

// Runtime says how the agent runs. Without command and image it is the
// built-in agent host; with either it is an agent the operator brings,
// which serves its own card.
type Runtime struct {
	// Image is the agent's own image (container and kubernetes adapters).
	Image string `toml:"image"`
	// Command is the program and its arguments, run without a shell: on
	// the local adapter in place of the built-in host, on the container and
	// kubernetes adapters in place of the image's command.
	Command []string `toml:"command"`
	// Pull says when the engine pulls Image: PullMissing (the default),
	// PullAlways or PullNever.
	Pull string `toml:"pull"`
	// Port is the port the agent listens on: inside the container, or on
	// the local adapter the one to pass it (else [server] http_port, else
	// one the runtime allocates).
	Port int `toml:"port"`
	// CardPath is where the agent serves its card.
	CardPath string `toml:"card_path"`
	// WorkingDir is the agent's working directory (local adapter only).
	WorkingDir string `toml:"working_dir"`
	// Env holds plain, non-secret variables for the agent.
	Env map[string]string `toml:"env"`
}

// Pull policies of [runtime] pull.
const (
	PullMissing = "missing"
	PullAlways  = "always"
	PullNever   = "never"
)

// Brought reports whether the config describes an agent the operator
// brings (a command or an image) rather than the built-in host.
func (r Runtime) Brought() bool { return len(r.Command) > 0 || r.Image != "" }

// PullPolicy returns the pull policy, PullMissing when unset.
func (r Runtime) PullPolicy() string {
	if r.Pull == "" {
		return PullMissing
	}
	return r.Pull
}

// Raw returns the bytes the config was parsed from.
func (c *Config) Raw() []byte { return c.raw }

// SHA256 returns the hex sha256 digest of the raw config, its provenance.
func (c *Config) SHA256() string { return hex.EncodeToString(c.digest[:]) }

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
	d := decode(raw, &cfg)
	if !d.complete {
		return nil, &Error{Problems: d.problems}
	}
	cfg.raw = append([]byte(nil), raw...)
	cfg.digest = sha256.Sum256(raw)
	cfg.applyDefaults()
	// Validation runs even when decoding found problems, so that one run
	// reports them all; what it finds wrong with a value left out for its
	// type is that problem again.
	var found []Problem
	for _, p := range cfg.validate() {
		if !shadowedBy(p.Key, d.blanked) {
			found = append(found, p)
		}
	}
	problems := d.problems
	if len(found) > 0 {
		problems = append(problems, cfg.locate(found).Problems...)
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return nil, &Error{Problems: problems}
	}
	return &cfg, nil
}

// sortProblems puts problems in the order the config is read, those
// without a position last, so that a long list reads top to bottom.
func sortProblems(problems []Problem) {
	slices.SortStableFunc(problems, func(a, b Problem) int {
		if (a.Line == 0) != (b.Line == 0) {
			return cmp.Compare(b.Line, a.Line) // the one with a line first
		}
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

func (c *Config) applyDefaults() {
	// A brought agent has no handler; leaving the type empty lets
	// validate tell a [handler] the operator wrote from a default.
	if c.Handler.Type == "" && !c.Runtime.Brought() {
		c.Handler.Type = HandlerEcho
	}
	if c.Handler.Echo.Reply == "" {
		c.Handler.Echo.Reply = EchoReplyTask
	}
	if l := c.Handler.LLM; l != nil && l.MaxConcurrentCalls == 0 {
		l.MaxConcurrentCalls = DefaultMaxConcurrentCalls
	}
	if c.Tasks.MaxCount == 0 {
		c.Tasks.MaxCount = DefaultMaxTasks
	}
	if c.Tasks.Retention == "" {
		c.Tasks.Retention = DefaultTaskRetention.String()
	}
	for i := range c.Skills {
		if c.Skills[i].Name == "" {
			c.Skills[i].Name = c.Skills[i].ID
		}
	}
}
