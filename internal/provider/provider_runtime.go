package provider

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	// plannedIDs holds the ids of the agents this process plans to create:
	// Terraform plans every resource of a configuration in one process,
	// so two that spell one id meet here, before either is created.
	plannedIDs plannedIDs
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
	rt, err := newRuntime(ctx, s, dir, nil)
	if err != nil {
		return nil, err
	}
	return &runtimeDeps{runtime: rt, allowlists: statedir.NewAllowlists(dir), stateDir: dir.Path(), open: opener(s, dir)}, nil
}

// newRuntime is the one place an adapter is built. Without at, it builds
// the adapter the provider block selects, in dir, the provider's state
// dir. With at, it opens the runtime at names, where an agent was started
// under another provider block: the adapter, state dir, engine, namespace
// and scope at records, with the rest (executable, grace periods, TLS files,
// the cluster's credentials) from the provider block; it refuses a runtime
// that is no longer the one at names.
func newRuntime(ctx context.Context, s settings, dir *statedir.Dir, at *agentruntime.Identity) (agentruntime.Runtime, error) {
	adapter := s.adapter()
	if at != nil {
		adapter = at.Adapter
	}
	var (
		rt  agentruntime.Runtime
		err error
		// moved says why the runtime opened for at is another one.
		moved func(now agentruntime.Identity) error
	)
	switch adapter {
	case agentruntime.AdapterLocal:
		if at != nil {
			if dir, err = agentStateDir(*at); err != nil {
				return nil, err
			}
			moved = func(agentruntime.Identity) error {
				return fmt.Errorf("state dir %s is no longer the one the agent was started in (it was moved away and another "+
					"made in its place): set state_dir in the provider block to where the old one is now", at.StateDir)
			}
		}
		opts := s.local
		opts.StateDir = dir
		rt, err = local.New(opts)
	case agentruntime.AdapterContainer:
		opts := container.Options{Executable: s.local.Executable, Version: s.local.Version}
		if s.container != nil {
			opts = *s.container
		}
		if at != nil {
			opts.Host, opts.Scope = at.Engine, at.Scope
		}
		opts.StateDir = dir
		rt, err = container.New(ctx, opts)
	case agentruntime.AdapterKubernetes:
		// An identity records the cluster's address, not the credentials
		// to reach it: those of the provider block's must do.
		if s.kubernetes == nil {
			return nil, fmt.Errorf("the agent was started by the %s runtime: keep a kubernetes block reaching that cluster "+
				"in the provider block until the agent is destroyed or moved", at)
		}
		opts := *s.kubernetes
		if at != nil {
			opts.Namespace, opts.Scope = at.Namespace, at.Scope
			moved = func(now agentruntime.Identity) error {
				return fmt.Errorf("the agent was started on the cluster at %s, and the provider's kubeconfig leads to %s: "+
					"point the kubernetes block's kubeconfig or context at the agent's cluster to manage it", at.Engine, now.Engine)
			}
		}
		opts.StateDir = dir
		rt, err = kube.New(ctx, opts)
	default:
		return nil, fmt.Errorf("the agent was started by the %s adapter, which this provider cannot reach", at)
	}
	switch {
	case err != nil && at != nil:
		return nil, fmt.Errorf("open the %s the agent was started in: %w", at, err)
	case err != nil:
		return nil, err
	case moved != nil && !rt.Identity().Same(*at):
		return nil, moved(rt.Identity())
	}
	return rt, nil
}

// agentStateDir opens the state dir an agent was started in, refusing to
// make one anew where it is gone: that would only hide where its agents
// went.
func agentStateDir(at agentruntime.Identity) (*statedir.Dir, error) {
	if _, err := os.Stat(at.StateDir); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("state dir %s, where the agent was started, no longer exists: if it was moved, set state_dir "+
			"in the provider block to its new place; if it is lost, stop the agent's process by hand (the provider's warning "+
			"about agents of lost state dirs names it) and remove the agent from state with terraform state rm", at.StateDir)
	}
	dir, err := statedir.Open(at.StateDir)
	if err != nil {
		return nil, fmt.Errorf("open the %s the agent was started in: %w", at, err)
	}
	return dir, nil
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
