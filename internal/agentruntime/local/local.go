//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/hostexe"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/writeonly"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
)

// startupWindow is how long Start watches a new agent: it returns as soon as
// the card answers, fails if the agent exits meanwhile, and otherwise leaves
// the rest of the wait to the caller.
const startupWindow = 3 * time.Second

// pollInterval paces the checks of a starting or stopping agent.
const pollInterval = 5 * time.Millisecond

// killWait bounds the wait for a process after SIGKILL.
const killWait = 5 * time.Second

// Runtime is the local adapter. It is safe for concurrent use, also by
// several processes over one state dir.
type Runtime struct {
	dir   *statedir.Dir
	dirID string
	exe   string
	// version is the release exe must be of; empty, it is not checked.
	version string
	grace   time.Duration
	// policy and backoff say when and how agents' supervisors restart them.
	policy  string
	backoff Backoff
	// writeOnly holds each agent's write-only values, for its every start.
	writeOnly writeonly.Store

	mu sync.Mutex
	// exited holds, for each child this process started and has not yet
	// reaped, a channel closed when it exits.
	exited map[int]chan struct{}
}

var _ agentruntime.Runtime = (*Runtime)(nil)

// New returns the adapter keeping its records in opts.StateDir.
func New(opts Options) (*Runtime, error) {
	dir := opts.StateDir
	if dir == nil {
		return nil, errors.New("local runtime: no state dir; open one with statedir.Open and pass it in Options.StateDir")
	}
	// The host itself is checked when an agent starts, not here: reading,
	// stopping and destroying agents need no host, even a missing one.
	exe := opts.Executable
	var err error
	if exe == "" {
		if exe, err = hostexe.Beside(); err != nil {
			return nil, fmt.Errorf("local runtime: %w; set executable in the local block", err)
		}
	}
	if err := dir.MkdirAll(logDir); err != nil {
		return nil, fmt.Errorf("local runtime: %w", err)
	}
	grace := opts.StopGracePeriod
	if grace <= 0 {
		grace = DefaultStopGracePeriod
	}
	policy := opts.RestartPolicy
	if policy == "" {
		policy = DefaultRestartPolicy
	}
	if err := CheckRestartPolicy(policy); err != nil {
		return nil, fmt.Errorf("local runtime: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), openWait)
	defer cancel()
	dirID, err := dir.ID(ctx)
	if err != nil {
		return nil, fmt.Errorf("local runtime: %w", err)
	}
	return &Runtime{dir: dir, dirID: dirID, exe: exe, version: opts.Version, grace: grace, policy: policy, backoff: opts.Backoff.withDefaults(), writeOnly: writeonly.NewStore(dir, writeOnlyDir),
		exited: map[int]chan struct{}{}}, nil
}

// openWait bounds New's wait for the state dir lock, held by another run
// only for moments.
const openWait = 30 * time.Second

// Identity names the state dir the agents live in.
func (r *Runtime) Identity() agentruntime.Identity {
	return agentruntime.Identity{Adapter: agentruntime.AdapterLocal, StateDir: r.dir.Path(), StateDirID: r.dirID}
}

// prepare applies the shared checks and refuses what this adapter cannot run.
func prepare(op string, spec agentruntime.Spec) (agentruntime.Prepared, error) {
	p, err := agentruntime.Prepare(spec)
	if err != nil {
		return p, err
	}
	if err := agentruntime.RefuseWorkload(op, p.ID, spec); err != nil {
		return agentruntime.Prepared{}, err
	}
	if p.Config.Runtime.Image != "" {
		return agentruntime.Prepared{}, agentruntime.Unsupported(op, p.ID,
			fmt.Sprintf("[runtime] image %q needs the container adapter (a container {} block in the provider); the local adapter runs the built-in agent host, or a program given as [runtime] command", p.Config.Runtime.Image))
	}
	return p, nil
}

// Check applies every check Provision makes, without side effects.
func (r *Runtime) Check(_ context.Context, spec agentruntime.Spec) (agentruntime.Prepared, error) {
	return prepare("check", spec)
}

// Provision records the agent and its config; a new agent without
// http_port gets the preferred port when it is free, else a free port, kept
// from then on. With spec.CreateOnly an
// agent that has a record is refused, under the state dir lock. That lock
// is held only until the record claims the port: other agents' provisions
// go on while this one writes its config, under the agent's own lock.
func (r *Runtime) Provision(ctx context.Context, spec agentruntime.Spec) (agentruntime.Agent, error) {
	const op = "provision"
	if err := agentruntime.RequireKnownAllowlist(op, spec); err != nil {
		return agentruntime.Agent{}, err
	}
	p, err := prepare(op, spec)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	cfg, id := p.Config, p.ID
	var workDir string
	if cfg.Runtime.Brought() {
		if workDir, err = checkProgram(op, id, cfg); err != nil {
			return agentruntime.Agent{}, err
		}
	}
	noneRan := r.noneRunning(id)
	unlockDir, err := r.lockDir(ctx, op, id)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	defer func() {
		if unlockDir != nil {
			unlockDir()
		}
	}()
	lock, err := r.lockAgent(ctx, op, id)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	defer lock.Unlock()
	rec, err := r.load(op, id)
	found := err == nil
	switch {
	case agentruntime.IsKind(err, agentruntime.KindNotFound):
	case agentruntime.IsKind(err, agentruntime.KindDamaged):
		noneRan = false
	case err != nil:
		return agentruntime.Agent{}, err
	}
	if !found {
		rec = &record{ID: id}
	}
	switch {
	case found && spec.CreateOnly && !rec.takenOverBy(p.Digest, p.Allowlist):
		return agentruntime.Agent{}, agentruntime.ExistsError(op, id)
	case !found:
		// No record, or a damaged one: whatever of the agent still runs
		// is stopped before it is created afresh.
		if err := r.stopOrphan(ctx, op, id, noneRan); err != nil {
			return agentruntime.Agent{}, err
		}
	}
	if spec.CreateOnly {
		rec.Creation = &creation{ConfigSHA256: p.Digest, EnvAllowlist: p.Allowlist, Creator: thisProcess()}
	}
	rec.Name = cfg.Agent.Name
	rec.Host = cfg.ListenHost()
	switch {
	case cfg.Runtime.Port != 0:
		rec.Port, rec.PortAllocated = cfg.Runtime.Port, false
	case p.FixedPort != 0:
		rec.Port, rec.PortAllocated = p.FixedPort, false
	case rec.PortAllocated && rec.Port != 0:
	default:
		port, err := r.choosePort(ctx, op, id, rec.Host, p.PreferredPort)
		if err != nil {
			return agentruntime.Agent{}, err
		}
		rec.Port, rec.PortAllocated = port, true
	}
	rec.Endpoint = card.Endpoint(cfg.Server.AdvertisedURL, rec.Host, rec.Port)
	rec.CardURL = card.CardURL(rec.Endpoint)
	rec.Brought, rec.CardPaths, rec.WorkingDir = false, nil, ""
	if cfg.Runtime.Brought() {
		placeBrought(rec, cfg, workDir)
	}
	rec.ConfigSHA256 = p.Digest
	rec.InjectedEnv = p.InjectedEnv
	rec.EnvAllowlist = p.Allowlist
	rec.WriteOnlyVersion = p.WriteOnlyVersion
	// The values before the record that will use them: a record is never
	// left describing an agent whose values are missing.
	if err := r.writeOnly.Put(id, spec.WriteOnly); err != nil {
		return agentruntime.Agent{}, agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "store the write-only values")
	}
	// The record first: should the config not follow, Start finds the
	// config file does not match the record's digest and refuses, rather
	// than run one config under another's record. Once others see it, it
	// holds the port, and their provisions go on while it is made durable.
	syncRecord, err := r.publish(op, rec)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	unlockDir()
	unlockDir = nil
	if err := syncRecord(); err != nil {
		return agentruntime.Agent{}, err
	}
	crashpoint.Hit("local-provision-recorded")
	if err := r.dir.WriteFile(configFile(id), spec.Config); err != nil {
		return agentruntime.Agent{}, agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
	}
	crashpoint.Hit("local-provision-configured")
	return r.view(ctx, rec, slices.Clone(spec.Config)), nil
}

// Start spawns the agent's supervisor detached, which runs the agent, and
// watches the agent until its card answers, it exits (a spawn failure
// pointing at its log), or the startup window ends.
func (r *Runtime) Start(ctx context.Context, id string) error {
	const op = "start"
	if _, err := r.load(op, id); err != nil {
		return err // before any lock file is made for an unknown id
	}
	lock, err := r.lockAgent(ctx, op, id)
	if err != nil {
		return err
	}
	err = r.spawnLocked(ctx, id)
	lock.Unlock()
	if err != nil {
		return err
	}
	return r.watchStartup(ctx, id)
}

// spawnLocked starts the agent's supervisor; the caller holds the agent's
// lock.
func (r *Runtime) spawnLocked(ctx context.Context, id string) error {
	const op = "start"
	rec, err := r.load(op, id)
	if err != nil {
		return err
	}
	if _, err := r.adopt(op, rec); err != nil {
		return err
	}
	if rec.running() {
		// One left unsupervised (its supervisor was killed) is supervised
		// again, by a supervisor that watches it rather than start another.
		r.resupervise(ctx, op, rec)
		return agentruntime.Errorf(agentruntime.KindAlreadyRunning, op, id, nil, "already running as pid %d", rec.PID)
	}
	// A supervisor waiting to restart the agent gives way to this start.
	if err := r.unsupervise(ctx, op, rec); err != nil {
		return err
	}
	raw, err := r.readConfig(rec)
	if err != nil {
		return err
	}
	if err := r.checkPortFree(ctx, rec); err != nil {
		return err
	}
	logf, err := r.dir.AppendFile(logFile(id))
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "open log")
	}
	defer func() { _ = logf.Close() }() // the child holds its own descriptor
	agent, err := r.agentCommand(ctx, rec, raw)
	var cmd *exec.Cmd
	if err == nil {
		cmd, err = r.supervisorCommand(ctx, rec, agent)
	}
	if err != nil {
		r.appendLog(id, "cannot start the agent: %v", err)
		return agentruntime.Wrap(agentruntime.KindSpawnFailure, op, id, err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	_, _ = fmt.Fprintf(logf, "%s local runtime: starting agent on port %d (config sha256 %s, restart policy %q)\n",
		time.Now().UTC().Format(time.RFC3339), rec.Port, rec.ConfigSHA256, r.policy)
	// The intent first: should this process die before it records the
	// supervisor, the supervisor takes the intent as its own, and the
	// next look finds the agent by the identity it carries.
	rec.process = process{Starting: true, ConfigSHA256: rec.ConfigSHA256, BootID: bootID()}
	if err := r.saveProcess(op, rec); err != nil {
		return err
	}
	crashpoint.Hit("local-start-intended")
	if err := cmd.Start(); err != nil {
		r.appendLog(id, "cannot run %s: %v", cmd.Path, err)
		r.abandonSpawn(op, rec)
		return agentruntime.Errorf(agentruntime.KindSpawnFailure, op, id, err, "run %s", cmd.Path)
	}
	crashpoint.Hit("local-start-spawned")
	pid := cmd.Process.Pid
	// Read before the reaper can collect it: until then the pid is ours.
	start, statErr := startTimeOf(pid)
	r.reap(cmd)
	if statErr != nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		r.abandonSpawn(op, rec)
		return agentruntime.Wrap(agentruntime.KindSpawnFailure, op, id, statErr)
	}
	rec.Supervisor = &pidStart{PID: pid, StartTime: start}
	if err := r.saveProcess(op, rec); err != nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return err
	}
	crashpoint.Hit("local-start-recorded")
	return nil
}

// abandonSpawn records, best effort, that a spawn it intended did not
// happen; should this fail, recovery finds no process and clears it.
func (r *Runtime) abandonSpawn(op string, rec *record) {
	rec.process = process{}
	_ = r.saveProcess(op, rec)
}

// reap collects the child's exit status as soon as it exits, so no zombie
// lingers while this process lives, and tells waitExit of the exit.
func (r *Runtime) reap(cmd *exec.Cmd) {
	done := make(chan struct{})
	pid := cmd.Process.Pid
	r.mu.Lock()
	r.exited[pid] = done
	r.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		r.mu.Lock()
		delete(r.exited, pid)
		r.mu.Unlock()
		close(done)
	}()
}

// watchStartup follows the agent's process file, which its supervisor
// keeps, until the agent's card answers or the startup window ends. An
// agent that exits first (or whose supervisor does) failed to start: it is
// stopped, restarts and all, rather than left to a crash loop no one asked
// for.
func (r *Runtime) watchStartup(ctx context.Context, id string) error {
	window := time.NewTimer(startupWindow)
	defer window.Stop()
	for {
		rec, err := r.load("start", id)
		if err != nil {
			return nil // removed meanwhile: whoever removed it reports
		}
		switch {
		case rec.running():
			if rec.probe(ctx).Healthy() {
				return nil
			}
		case rec.Failed || rec.LastExit != "" || rec.Restarts > 0 || !rec.supervised():
			stopping, cancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeepingWait+r.grace)
			_ = r.Stop(stopping, id)
			cancel()
			return agentruntime.Errorf(agentruntime.KindSpawnFailure, "start", id, nil,
				"the agent exited right after starting; its output is in %s", r.dir.Join(logFile(id)))
		}
		select {
		case <-window.C:
			return nil
		case <-ctx.Done():
			return nil
		case <-time.After(pollInterval):
		}
	}
}

// Stop sends SIGTERM to the agent's process group, and SIGKILL after the
// grace period. The lock is not held while waiting, so other agents'
// operations go on.
func (r *Runtime) Stop(ctx context.Context, id string) error {
	const op = "stop"
	rec, err := r.load(op, id)
	if err != nil {
		return err
	}
	// The supervisor first, told before it is signalled, so that nothing
	// restarts the agent once it is stopped.
	if rec.supervised() {
		if rec, err = r.unsuperviseNow(ctx, op, id); err != nil {
			return err
		}
	}
	pid, start := rec.PID, rec.StartTime
	var cutShort error
	if rec.running() {
		if cutShort = r.terminate(ctx, op, id, pid, start); cutShort != nil && !isCutShort(cutShort) {
			return cutShort
		}
	}
	crashpoint.Hit("local-stop-stopped")
	// Any other process of the agent, one a crash left unrecorded, goes too.
	if err := r.stopStrays(ctx, op, id); err != nil {
		return err
	}
	if pid == 0 && !rec.Starting {
		return nil
	}
	// The agent is dead: recording so must not fail because the caller's
	// time ran out meanwhile.
	bookkeeping, cancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeepingWait)
	defer cancel()
	return errors.Join(cutShort, r.clearProcess(bookkeeping, op, id, pid, start))
}

// bookkeepingWait bounds the wait for an agent's lock to record that its
// process is gone.
const bookkeepingWait = 5 * time.Second

// errCutShort marks a stop whose grace period the caller's deadline ended:
// the agent was killed, so the stop itself went through.
var errCutShort = errors.New("stop grace period cut short")

func isCutShort(err error) bool { return errors.Is(err, errCutShort) }

// terminate stops the process pid started at start: SIGTERM to its group,
// then SIGKILL once the grace period or ctx ends, whichever comes first,
// since the caller's deadline wins over the grace period. A grace period
// cut short is reported, after the kill, as an error wrapping errCutShort.
func (r *Runtime) terminate(ctx context.Context, op, id string, pid int, start uint64) error {
	left := "no"
	if deadline, ok := ctx.Deadline(); ok {
		left = time.Until(deadline).Round(time.Millisecond).String()
	}
	r.appendLog(id, "stopping agent (pid %d)", pid)
	if err := signalGroup(pid, start, syscall.SIGTERM); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "signal pid %d", pid)
	}
	// A suspended agent (SIGSTOP, a debugger) acts on SIGTERM only once it
	// runs again; without this it would sit out the whole grace period.
	_ = signalGroup(pid, start, syscall.SIGCONT)
	if r.waitExit(ctx, pid, start, r.grace) {
		return nil
	}
	var cutShort error
	if ctx.Err() != nil {
		r.appendLog(id, "agent (pid %d) did not stop before the operation's timeout; killing it", pid)
		cutShort = agentruntime.Errorf(agentruntime.KindBackend, op, id, fmt.Errorf("%w: %w", errCutShort, ctx.Err()),
			"the operation's timeout (%s left when the stop began) ended before the stop grace period (%s) did, so the agent (pid %d) was killed; "+
				"set the resource's timeouts (delete, and update for restarts) above the local block's stop_grace_period",
			left, r.grace, pid)
	} else {
		r.appendLog(id, "agent (pid %d) did not stop within %s; killing it", pid, r.grace)
	}
	if err := signalGroup(pid, start, syscall.SIGKILL); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "kill pid %d", pid)
	}
	if !r.waitExit(context.WithoutCancel(ctx), pid, start, killWait) {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, nil, "pid %d survived SIGKILL; stop it by hand", pid)
	}
	return cutShort
}

// stopStrays stops every process of agent id the process table shows.
func (r *Runtime) stopStrays(ctx context.Context, op, id string) error {
	for _, p := range r.processesOf(id) {
		what := "agent process"
		if p.Supervisor {
			what = "agent supervisor"
		}
		r.appendLog(id, "stopping %s (pid %d) that no process file names", what, p.PID)
		if err := r.terminate(ctx, op, id, p.PID, p.StartTime); err != nil && !isCutShort(err) {
			return err
		}
	}
	return nil
}

// clearProcess clears the record's process if it is still the one given.
func (r *Runtime) clearProcess(ctx context.Context, op, id string, pid int, start uint64) error {
	lock, err := r.lockAgent(ctx, op, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	rec, err := r.load(op, id)
	if agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if rec.PID != pid || rec.StartTime != start || (rec.Starting && pid != 0) {
		return nil // started again meanwhile
	}
	rec.process = process{}
	return r.saveProcess(op, rec)
}

// waitExit waits up to limit for the process to die; it reports whether it did.
func (r *Runtime) waitExit(ctx context.Context, pid int, start uint64, limit time.Duration) bool {
	r.mu.Lock()
	exited := r.exited[pid]
	r.mu.Unlock()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for alive(pid, start) {
		select {
		case <-exited: // nil, never ready, for an agent this process did not start
			return true
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// appendLog adds a runtime line to agent id's log, best effort: the log is
// for the operator and a failure to write it must not fail the operation.
func (r *Runtime) appendLog(id, format string, args ...any) {
	f, err := r.dir.AppendFile(logFile(id))
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	_, _ = fmt.Fprintf(f, "%s local runtime: %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

// health is the agent's health now, with what probing its card found
// when it runs.
func health(ctx context.Context, rec *record) (agentruntime.Health, agentruntime.CardCheck) {
	switch {
	case rec.running() && rec.process.ConfigSHA256 != "" && rec.process.ConfigSHA256 != rec.ConfigSHA256:
		// It runs a config provisioned before the last one, as when a
		// crash came between provisioning and restarting: it must restart.
		return agentruntime.HealthUnhealthy, agentruntime.CardCheck{Err: errors.New("the agent runs a config older than the one provisioned; apply restarts it")}
	case rec.running():
		check := rec.probe(ctx)
		if check.Healthy() {
			return agentruntime.HealthHealthy, check
		}
		return agentruntime.HealthUnhealthy, check
	case rec.supervised() && !rec.Stopping:
		// Between two runs: its supervisor restarts it after a pause.
		return agentruntime.HealthUnhealthy, agentruntime.CardCheck{Err: fmt.Errorf(
			"the agent exited (%s) and its supervisor restarts it (%d restarts so far)", orUnknown(rec.LastExit), rec.Restarts)}
	case rec.Started:
		return agentruntime.HealthStopped, agentruntime.CardCheck{}
	default:
		return agentruntime.HealthProvisioned, agentruntime.CardCheck{}
	}
}

// Get returns the agent with its health now.
// A record whose config file is missing or was changed is damaged.
func (r *Runtime) Get(ctx context.Context, id string) (agentruntime.Agent, error) {
	rec, err := r.load("get", id)
	if agentruntime.IsKind(err, agentruntime.KindNotFound) && agentconfig.Slug(id) == id {
		// A deprovision cut short after it removed the record, but before
		// its lock files went, leaves them with nothing to track them: the
		// next look that finds the agent gone sweeps them. A lock someone
		// holds (a supervisor still letting go) stays.
		r.dir.SweepKey(ctx, supervisorLockKey(id))
		r.dir.SweepKey(ctx, agentLockKey(id))
	}
	if err != nil {
		return agentruntime.Agent{}, err
	}
	raw, err := r.readConfig(rec)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	return r.view(ctx, rec, raw), nil
}

// view is the agent rec records, with raw, the config it was provisioned
// with (nil when its file is missing or is another than rec describes), and
// its health now.
func (r *Runtime) view(ctx context.Context, rec *record, raw []byte) agentruntime.Agent {
	h, check := health(ctx, rec)
	a := agentruntime.Agent{
		ID: rec.ID, Name: rec.Name, Endpoint: rec.Endpoint, CardURL: rec.CardURL, Port: rec.Port,
		ConfigSHA256: rec.ConfigSHA256, InjectedEnv: rec.InjectedEnv, Health: h,
		EnvAllowlist: rec.EnvAllowlist, Card: check.Card, CardError: check.Err, Unclaimed: rec.Creation != nil,
		WriteOnlyVersion: rec.WriteOnlyVersion, Restarts: rec.Restarts,
	}
	if rec.Failed && !rec.running() {
		a.Failure = r.failure(ctx, rec)
	}
	// The config as provisioned, so that an imported agent reads back what
	// was declared.
	a.Config = raw
	if a.Health == agentruntime.HealthHealthy || a.Health == agentruntime.HealthUnhealthy {
		a.Running = true
	}
	if a.Running && rec.running() {
		a.Instance = strconv.Itoa(rec.PID)
		if started, ok := startedEnv(rec.PID); ok && len(rec.InjectedEnv) > 0 {
			a.ChangedEnv = agentruntime.ChangedEnv(rec.InjectedEnv, started)
		}
	}
	a.WriteOnly = r.writeOnlyNames(rec.ID)
	return a
}

// writeOnlyNames names the write-only values kept for the agent; none when
// its file is missing or unreadable, which its next start reports.
func (r *Runtime) writeOnlyNames(id string) []string {
	p, ok, err := r.writeOnly.Path(id)
	if !ok || err != nil {
		return nil
	}
	values, err := writeonly.Read(p)
	if err != nil {
		return nil
	}
	return agentruntime.WriteOnlyValues(values).Names()
}

// Recover adopts every recorded agent whose process is alive; records of
// dead processes stay, as stopped agents.
func (r *Runtime) Recover(ctx context.Context) (agentruntime.Recovery, error) {
	const op = "recover"
	unlock, err := r.lockAll(ctx, op, "")
	if err != nil {
		return agentruntime.Recovery{}, err
	}
	defer unlock()
	recs, err := r.loadAll(op)
	if err != nil {
		return agentruntime.Recovery{}, err
	}
	// One look at the process table serves both questions: the dir lock
	// keeps records from being made or removed meanwhile.
	procs := ScanProcesses()
	out := agentruntime.Recovery{Mode: agentruntime.Adopted, IDs: []string{}, Unmanaged: r.lostAgents(procs, "")}
	recorded := map[string]bool{}
	for _, rec := range recs {
		recorded[rec.ID] = true
		running, err := r.recoverOne(ctx, op, rec)
		if err != nil {
			return agentruntime.Recovery{}, err
		}
		if running {
			out.IDs = append(out.IDs, rec.ID)
		}
	}
	for _, p := range procs {
		if p.StateDirID == r.dirID && !recorded[p.AgentID] && !p.Supervisor {
			out.Unmanaged = append(out.Unmanaged, agentruntime.Unmanaged{ID: p.AgentID, Instance: strconv.Itoa(p.PID),
				Why: fmt.Sprintf("agent %q (pid %d) of state dir %s runs, but its record %s is missing or damaged: "+
					"terraform apply of the agent stops it and creates it afresh, terraform destroy stops it",
					p.AgentID, p.PID, r.dir.Path(), r.dir.Join(recordFile(p.AgentID)))})
		}
	}
	if err := r.removeStrayTemps(ctx, op); err != nil {
		return agentruntime.Recovery{}, err
	}
	return out, nil
}

// recoverOne settles what a crash may have left of one agent's process:
// a process the table shows but no process file names is adopted, and a
// process file naming a dead process, or a spawn intent no process
// followed, is cleared. It reports whether the agent runs.
func (r *Runtime) recoverOne(ctx context.Context, op string, rec *record) (bool, error) {
	if rec.running() && (rec.supervised() || rec.Stopping) {
		return true, nil
	}
	lock, err := r.lockAgent(ctx, op, rec.ID)
	if err != nil {
		return false, err
	}
	defer lock.Unlock()
	if rec, err = r.load(op, rec.ID); err != nil {
		return false, nil // removed or damaged meanwhile: its own operations report it
	}
	adopted, err := r.adopt(op, rec)
	switch {
	case err != nil:
		return false, err
	case adopted || rec.running():
		// Its supervisor was killed, or it predates supervision: a new
		// supervisor adopts it, and it is never started a second time.
		r.resupervise(ctx, op, rec)
		return true, nil
	case rec.supervised():
		return true, nil // between two runs: its supervisor restarts it
	case rec.PID != 0 || rec.Starting:
		// Why it stays down is kept: a failed agent reads failed.
		rec.process = rec.outcome()
		return false, r.saveProcess(op, rec)
	}
	return false, nil
}

// List returns every agent, sorted by id, probing them in parallel; see
// Survey for those it leaves out.
func (r *Runtime) List(ctx context.Context) ([]agentruntime.Agent, error) {
	s, err := r.Survey(ctx)
	return s.Agents, err
}

// Logs returns the last tail lines of the agent's output.
func (r *Runtime) Logs(ctx context.Context, id string, tail int) ([]string, error) {
	rec, err := r.load("logs", id)
	if err != nil {
		return nil, err
	}
	lines, err := tailLines(ctx, r.dir, logFile(rec.ID), tail)
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindBackend, "logs", id, err)
	}
	return lines, nil
}

// Deprovision stops the agent and removes its record, config, log and lock
// file. It works on a damaged agent too, and on what a deprovision cut
// short left: every process of the agent the process table shows is
// stopped, and every file of it removed, the record last, so that until
// the end the record says there is something left to remove.
func (r *Runtime) Deprovision(ctx context.Context, id string) error {
	const op = "deprovision"
	if id == "" || agentconfig.Slug(id) != id {
		return nil // no agent can have this id
	}
	err := r.Stop(ctx, id)
	switch {
	case err == nil, agentruntime.IsKind(err, agentruntime.KindNotFound), agentruntime.IsKind(err, agentruntime.KindDamaged):
		// A missing or damaged record names no process; the table does.
		if err := r.stopStrays(ctx, op, id); err != nil {
			return err
		}
	default:
		return err
	}
	crashpoint.Hit("local-deprovision-stopped")
	unlockDir, err := r.lockDir(ctx, op, id)
	if err != nil {
		return err
	}
	defer unlockDir()
	lock, err := r.lockAgent(ctx, op, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	rec, err := r.load(op, id)
	if err == nil && rec.running() {
		return agentruntime.Errorf(agentruntime.KindConflict, op, id, nil,
			"the agent was started again (pid %d) while being removed; destroy it again", rec.PID)
	}
	if left := r.processesOf(id); len(left) > 0 {
		return agentruntime.Errorf(agentruntime.KindConflict, op, id, nil,
			"agent process %d still runs after it was stopped; destroy it again", left[0].PID)
	}
	if err := r.removeWriteOnly(op, id); err != nil {
		return err
	}
	for i, f := range []string{processFile(id), configFile(id), logFile(id), recordFile(id)} {
		if err := r.dir.Remove(f); err != nil {
			return agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
		}
		if i == 1 {
			crashpoint.Hit("local-deprovision-removing")
		}
	}
	if err := r.removeTemps(op, id); err != nil {
		return err
	}
	if err := r.removeSupervisorLock(ctx, op, id); err != nil {
		return err
	}
	return r.removeLock(op, id, lock)
}

// removeWriteOnly deletes the agent's write-only values.
func (r *Runtime) removeWriteOnly(op, id string) error {
	if err := r.writeOnly.Remove(id); err != nil {
		return agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
	}
	return nil
}

// Claim records that the caller tracks the agent, so that no later create
// takes it over.
func (r *Runtime) Claim(ctx context.Context, id string) error {
	const op = "claim"
	lock, err := r.lockAgent(ctx, op, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	rec, err := r.load(op, id)
	if err != nil || rec.Creation == nil {
		return err
	}
	rec.Creation = nil
	return r.save(op, rec)
}

// removeLock deletes the lock file of agent id, gone for good, and
// releases it.
func (r *Runtime) removeLock(op, id string, lock *statedir.KeyLock) error {
	if err := lock.Remove(); err != nil {
		return agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
	}
	return nil
}

// PlannedAddress is the address Provision gives the built-in host's agent
// whose config fixes its port.
func (r *Runtime) PlannedAddress(cfg *agentconfig.Config) (agentruntime.Address, bool) {
	if cfg.Runtime.Brought() {
		return agentruntime.Address{}, false
	}
	return agentruntime.FixedAddress(cfg, cfg.ListenHost())
}
