// Package memory is an in-process runtime for unit tests of provider logic.
// It runs nothing: it keeps records in a map, flips their state on Start and
// Stop, and reports health from that state. It keeps nothing across
// processes and says so from Recover.
package memory

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// firstPort is where ports handed to configs without http_port begin. No
// socket is bound: the number only fills the Agent the way a real adapter
// would, and stays with the agent like a real allocation.
const firstPort = 40000

// Runtime is the in-memory adapter. The zero value is not usable; call New.
type Runtime struct {
	mu       sync.Mutex
	agents   map[string]*record
	nextPort int
	starts   int
}

type record struct {
	agent   agentruntime.Agent
	started bool
	logs    []string
	// env holds the injected variables as the last start found them in
	// this process's environment, as a real agent's process would.
	env map[string]string
}

var _ agentruntime.Runtime = (*Runtime)(nil)

// New returns an empty in-memory runtime.
func New() *Runtime {
	return &Runtime{agents: map[string]*record{}, nextPort: firstPort}
}

// Identity names the in-memory adapter; it has no location.
func (r *Runtime) Identity() agentruntime.Identity {
	return agentruntime.Identity{Adapter: agentruntime.AdapterMemory}
}

// Check applies the checks Provision makes.
func (r *Runtime) Check(_ context.Context, spec agentruntime.Spec) (agentruntime.Prepared, error) {
	return prepare("check", spec)
}

// prepare applies the shared checks and refuses a workload, which only
// the kubernetes adapter takes.
func prepare(op string, spec agentruntime.Spec) (agentruntime.Prepared, error) {
	p, err := agentruntime.Prepare(spec)
	if err == nil {
		err = agentruntime.RefuseWorkload(op, p.ID, spec)
	}
	if err != nil {
		return agentruntime.Prepared{}, err
	}
	return p, nil
}

// Provision records the agent, replacing the config of an existing one
// unless spec.CreateOnly forbids it.
func (r *Runtime) Provision(_ context.Context, spec agentruntime.Spec) (agentruntime.Agent, error) {
	if err := agentruntime.RequireKnownAllowlist("provision", spec); err != nil {
		return agentruntime.Agent{}, err
	}
	p, err := prepare("provision", spec)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	id := p.ID
	rec, ok := r.agents[id]
	if ok && spec.CreateOnly {
		return agentruntime.Agent{}, agentruntime.ExistsError("provision", id)
	}
	if !ok {
		rec = &record{}
		r.agents[id] = rec
	}
	port := p.FixedPort
	switch {
	case port != 0:
	case ok && rec.agent.Port != 0:
		port = rec.agent.Port
	case p.PreferredPort > 0 && !r.portHeld(p.PreferredPort):
		port = p.PreferredPort
	default:
		for r.portHeld(r.nextPort) {
			r.nextPort++
		}
		port = r.nextPort
		r.nextPort++
	}
	endpoint := card.Endpoint(p.Config.Server.AdvertisedURL, p.Config.ListenHost(), port)
	a := &rec.agent
	a.ID, a.Name, a.Port, a.Endpoint = id, p.Config.Agent.Name, port, endpoint
	a.CardURL = card.CardURL(endpoint)
	a.ConfigSHA256 = p.Digest
	a.InjectedEnv = p.InjectedEnv
	a.Config = slices.Clone(spec.Config)
	a.EnvAllowlist = p.Allowlist
	a.WriteOnly, a.WriteOnlyVersion = p.WriteOnly, p.WriteOnlyVersion
	rec.log("provisioned config sha256 %s", a.ConfigSHA256)
	return r.view(rec), nil
}

// portHeld reports whether an agent has port; the caller holds r.mu.
func (r *Runtime) portHeld(port int) bool {
	for _, rec := range r.agents {
		if rec.agent.Port == port {
			return true
		}
	}
	return false
}

// Start marks the agent running.
func (r *Runtime) Start(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.agents[id]
	if !ok {
		return agentruntime.NotFound("start", id)
	}
	if rec.agent.Running {
		return agentruntime.Errorf(agentruntime.KindAlreadyRunning, "start", id, nil, "already running as %s", rec.agent.Instance)
	}
	r.starts++
	rec.started = true
	rec.agent.Running = true
	rec.agent.Instance = fmt.Sprintf("memory-%d", r.starts)
	rec.env = map[string]string{}
	for _, name := range rec.agent.InjectedEnv {
		if v, ok := os.LookupEnv(name); ok {
			rec.env[name] = v
		}
	}
	rec.log("started as %s", rec.agent.Instance)
	return nil
}

// Stop marks the agent stopped; stopping a stopped agent is success.
func (r *Runtime) Stop(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.agents[id]
	if !ok {
		return agentruntime.NotFound("stop", id)
	}
	if rec.agent.Running {
		rec.log("stopped %s", rec.agent.Instance)
	}
	rec.agent.Running = false
	rec.agent.Instance = ""
	return nil
}

// Get returns the agent.
func (r *Runtime) Get(_ context.Context, id string) (agentruntime.Agent, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.agents[id]
	if !ok {
		return agentruntime.Agent{}, agentruntime.NotFound("get", id)
	}
	return r.view(rec), nil
}

// Recover answers honestly that nothing survives the process.
func (r *Runtime) Recover(context.Context) (agentruntime.Recovery, error) {
	return agentruntime.Recovery{Mode: agentruntime.Ephemeral}, nil
}

// List returns every agent, sorted by id.
func (r *Runtime) List(context.Context) ([]agentruntime.Agent, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, len(r.agents))
	for id := range r.agents {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]agentruntime.Agent, len(ids))
	for i, id := range ids {
		out[i] = r.view(r.agents[id])
	}
	return out, nil
}

// Logs returns the agent's recorded lifecycle lines.
func (r *Runtime) Logs(_ context.Context, id string, tail int) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.agents[id]
	if !ok {
		return nil, agentruntime.NotFound("logs", id)
	}
	lines := rec.logs
	if tail > 0 && tail < len(lines) {
		lines = lines[len(lines)-tail:]
	}
	return slices.Clone(lines), nil
}

// Deprovision forgets the agent; an unknown id is success.
func (r *Runtime) Deprovision(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.agents, id)
	return nil
}

// view copies the record's agent with its health; the caller holds r.mu.
func (r *Runtime) view(rec *record) agentruntime.Agent {
	a := rec.agent
	a.InjectedEnv = slices.Clone(a.InjectedEnv)
	a.Config = slices.Clone(a.Config)
	a.WriteOnly = slices.Clone(a.WriteOnly)
	switch {
	case a.Running:
		a.Health = agentruntime.HealthHealthy
		a.ChangedEnv = agentruntime.ChangedEnv(a.InjectedEnv, func(name string) (string, bool) { v, ok := rec.env[name]; return v, ok })
	case rec.started:
		a.Health = agentruntime.HealthStopped
	default:
		a.Health = agentruntime.HealthProvisioned
	}
	return a
}

func (rec *record) log(format string, args ...any) {
	rec.logs = append(rec.logs, fmt.Sprintf(format, args...))
}

// PlannedAddress is the address Provision gives an agent whose config
// fixes its port.
func (r *Runtime) PlannedAddress(cfg *agentconfig.Config) (agentruntime.Address, bool) {
	return agentruntime.FixedAddress(cfg, cfg.ListenHost())
}
