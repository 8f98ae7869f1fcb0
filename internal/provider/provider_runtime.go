package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/container"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/kube"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// runtimeDeps is what Configure hands to resources and data sources: the
// runtime the provider block selected, the allowlist store of the state dir
// and what the provider block restricts.
type runtimeDeps struct {
	runtime    agentruntime.Runtime
	allowlists agentruntime.AllowlistStore
	// cardHeaderEnv is the provider block's card_header_env_allowlist.
	cardHeaderEnv headerEnvAllowlist
	// stateDir is the path of the state dir allowlists are kept in; empty
	// for a store of no state dir.
	stateDir string
	// open reaches agents that another provider block started; nil when
	// only runtime can be reached.
	open openFunc
	// releasedPorts holds, by agent id, the port of each agent this process
	// deleted, for an agent of the same id created after it: Terraform
	// replaces an agent (-replace, a move to another runtime) by deleting
	// it and then creating it, in one run and so one provider process.
	releasedPorts sync.Map
}

// stateDirMark marks, in allowlist references, the state dir allowlists
// are kept in.
func (d *runtimeDeps) stateDirMark() string { return stateDirMark(d.stateDir) }

// allowlistNotFound explains that the state dir has no allowlist name: an
// agent reads allowlists from its own provider's state dir only.
func (d *runtimeDeps) allowlistNotFound(name string) string {
	where := "The state dir of this agent's provider"
	if d.stateDir != "" {
		where += ", " + d.stateDir + ","
	}
	return fmt.Sprintf("%s has no env allowlist named %q. An agent reads env allowlists from its own provider's state "+
		"dir only: declare the a2a_env_allowlist with the same provider as the agent (or one with the same state_dir), "+
		"and apply again.", where, name)
}

// releasePort remembers the port of agent id, just deleted.
func (d *runtimeDeps) releasePort(id string, port types.Int64) {
	if !port.IsNull() && !port.IsUnknown() && port.ValueInt64() > 0 {
		d.releasedPorts.Store(id, int(port.ValueInt64()))
	}
}

// releasedPort is the port of the agent of id deleted before, if any; it
// is given once.
func (d *runtimeDeps) releasedPort(id string) int {
	port, _ := d.releasedPorts.LoadAndDelete(id)
	p, _ := port.(int)
	return p
}

// connectFunc builds the runtime for resolved settings. Unit tests replace
// it to run the provider's logic against the in-memory adapter.
type connectFunc func(ctx context.Context, s settings) (*runtimeDeps, error)

// connect opens the state dir, once per provider process, and the adapter
// the provider block selects, which keeps its records and takes its locks
// there.
func connect(ctx context.Context, s settings) (*runtimeDeps, error) {
	dir, err := statedir.Open(s.stateDir)
	if err != nil {
		return nil, fmt.Errorf("open state dir %s: %w", s.stateDir, err)
	}
	var rt agentruntime.Runtime
	switch s.adapter() {
	case agentruntime.AdapterContainer:
		opts := *s.container
		opts.StateDir = dir
		rt, err = container.New(ctx, opts)
	case agentruntime.AdapterKubernetes:
		opts := *s.kubernetes
		opts.StateDir = dir
		rt, err = kube.New(ctx, opts)
	default:
		opts := s.local
		opts.StateDir = dir
		rt, err = local.New(opts)
	}
	if err != nil {
		return nil, err
	}
	return &runtimeDeps{runtime: rt, allowlists: statedir.NewAllowlists(dir), stateDir: dir.Path(), open: opener(s, dir)}, nil
}

// recoverAgents adopts the agents earlier provider processes started.
// Terraform runs a new provider process for every command, so this runs
// every time; it reads records or labels and probes nothing. A failure only
// warns: each resource then reports what it cannot reach, naming the agent.
func recoverAgents(ctx context.Context, rt agentruntime.Runtime) diag.Diagnostics {
	var diags diag.Diagnostics
	rec, err := rt.Recover(ctx)
	if err != nil {
		diags.AddWarning("Cannot recover agents started earlier",
			err.Error()+". The agents themselves are untouched; fix this and run the command again.")
		return diags
	}
	tflog.Info(ctx, "runtime ready", map[string]any{"recovery": string(rec.Mode), "adopted": rec.IDs})
	if len(rec.Unmanaged) > 0 {
		whys := make([]string, len(rec.Unmanaged))
		for i, u := range rec.Unmanaged {
			whys[i] = "- " + u.Why
		}
		diags.AddWarning("Agents run that no record manages",
			"These agents run, but no record of the runtime manages them:\n"+strings.Join(whys, "\n"))
	}
	return diags
}
