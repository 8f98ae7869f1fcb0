//go:build linux

package local

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// The supervisor of one agent, modelled on a task executor that outlives
// the agent that launched it: the agent host re-run with
// launch.SupervisorArg, detached in a session of its own like the agent,
// so that it lives on when the provider exits. It starts the agent, waits
// for it, and when the agent exits on its own restarts it under the
// restart policy, with backoff and up to a limit, writing each step to the
// agent's process file, under the agent's lock, before taking it.
//
// It holds the agent's supervisor lock (supervisorLockKey) for as long as
// it lives, so that no second supervisor, and so no second copy of the
// agent, ever runs; one that finds the agent running (its predecessor was
// killed) watches that process rather than start another. A stop writes
// the intent (process.Stopping) before it signals, so that a supervisor
// that misses the signal restarts nothing either. On SIGTERM it exits at
// once and leaves the agent to whoever stops it.

// The supervisor's flags.
const (
	supStateDirFlag = "state-dir"
	supAgentFlag    = "agent"
	supPolicyFlag   = "policy"
	supInitialFlag  = "initial-backoff"
	supMaxFlag      = "max-backoff"
	supLimitFlag    = "limit"
	supStableFlag   = "stable"
	supDirFlag      = "dir"
)

// claimWait bounds the wait for the supervisor lock: one held longer is
// another supervisor's, alive.
const claimWait = 2 * time.Second

// watchInterval paces the check of an agent the supervisor adopted, whose
// exit it cannot wait for, as it is not its child.
const watchInterval = 50 * time.Millisecond

// supervisorStopWait bounds the wait for a signalled supervisor, which
// exits at once, before it is killed.
const supervisorStopWait = 5 * time.Second

// Supervise is the supervisor's entry point: args are its flags, then the
// agent's command line. Its environment is the agent's, marked with
// envSupervisor. It returns the exit code.
func Supervise(args []string) int {
	s, err := parseSupervisor(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "a2a supervisor:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	if err := s.run(ctx); err != nil {
		s.rt.appendLog(s.id, "supervisor (pid %d): %v", os.Getpid(), err)
		return 1
	}
	return 0
}

type supervisor struct {
	rt      *Runtime
	id      string
	policy  string
	backoff Backoff
	argv    []string
	workDir string
	self    pidStart
	// ran says it has run or watched the agent once: every spawn after
	// that is a restart.
	ran bool
}

func parseSupervisor(args []string) (*supervisor, error) {
	fs := flag.NewFlagSet(SupervisorName, flag.ContinueOnError)
	stateDir := fs.String(supStateDirFlag, "", "")
	id := fs.String(supAgentFlag, "", "")
	policy := fs.String(supPolicyFlag, DefaultRestartPolicy, "")
	var b Backoff
	fs.DurationVar(&b.Initial, supInitialFlag, 0, "")
	fs.DurationVar(&b.Max, supMaxFlag, 0, "")
	fs.IntVar(&b.Limit, supLimitFlag, 0, "")
	fs.DurationVar(&b.Stable, supStableFlag, 0, "")
	workDir := fs.String(supDirFlag, "", "")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *stateDir == "" || *id == "" || fs.NArg() == 0 {
		return nil, errors.New("usage: supervise --state-dir DIR --agent ID [flags] -- COMMAND [ARGS]")
	}
	if err := CheckRestartPolicy(*policy); err != nil {
		return nil, err
	}
	dir, err := statedir.Open(*stateDir)
	if err != nil {
		return nil, err
	}
	start, err := startTimeOf(os.Getpid())
	if err != nil {
		return nil, err
	}
	return &supervisor{rt: &Runtime{dir: dir, exited: map[int]chan struct{}{}}, id: *id, policy: *policy,
		backoff: b.withDefaults(), argv: fs.Args(), workDir: *workDir, self: pidStart{PID: os.Getpid(), StartTime: start}}, nil
}

// SupervisorName names the supervisor in its messages.
const SupervisorName = "a2a supervisor"

// exit is how one run of the agent ended.
type exit struct {
	// failed: non-zero, by a signal, or not known.
	failed bool
	what   string
}

// run supervises until the agent is stopped, removed, left failed or
// exits for good under its policy, or ctx ends (the supervisor is told to
// stop).
func (s *supervisor) run(ctx context.Context) error {
	claim, cancel := context.WithTimeout(ctx, claimWait)
	lock, err := s.rt.dir.LockKey(claim, supervisorLockKey(s.id))
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("another supervisor of the agent runs, so this one leaves it to that one (%w)", err)
	}
	defer lock.Unlock()
	inRow := 0
	for {
		wait, err := s.begin(ctx)
		if err != nil || wait == nil {
			return ignoreStop(ctx, err)
		}
		began := time.Now()
		e, ok := wait(ctx)
		if !ok {
			return nil // told to stop: whoever stops it deals with the agent
		}
		var pause time.Duration
		var again bool
		again, inRow, pause, err = s.settle(ctx, e, time.Since(began), inRow)
		if !again {
			return ignoreStop(ctx, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pause):
		}
	}
}

// ignoreStop is err, unless ctx ended: a supervisor told to stop has
// nothing to report of what the stop cut short.
func ignoreStop(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return nil //nolint:nilerr // the stop, not err, ended the supervision
	}
	return err
}

// ours reports whether rec's process file names this supervisor, or is a
// start's intent that names none yet (its starter died before it recorded
// this supervisor), which this one, holding the supervisor lock, takes.
func (s *supervisor) ours(rec *record) bool {
	if rec.Supervisor == nil {
		return rec.Starting
	}
	return *rec.Supervisor == s.self
}

// begin runs the agent, or adopts it when it runs already, and returns how
// to wait for its exit; nil when there is nothing to supervise (stopped,
// removed, or another supervisor's).
func (s *supervisor) begin(ctx context.Context) (func(context.Context) (exit, bool), error) {
	const op = "supervise"
	lock, err := s.rt.lockAgent(ctx, op, s.id)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	rec, err := s.rt.load(op, s.id)
	if agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !s.ours(rec) || rec.Stopping {
		return nil, nil
	}
	self := s.self
	if rec.running() {
		rec.Supervisor = &self
		if err := s.rt.saveProcess(op, rec); err != nil {
			return nil, err
		}
		s.ran = true
		pid, start := rec.PID, rec.StartTime
		return func(ctx context.Context) (exit, bool) { return watch(ctx, pid, start) }, nil
	}
	restarts := rec.Restarts
	if s.ran || !rec.Starting {
		restarts++
	}
	configSHA := os.Getenv(envConfigSHA)
	// The intent first, as for every spawn: a crash between the spawn and
	// the record leaves a process the table finds.
	rec.process = process{Starting: true, BootID: bootID(), ConfigSHA256: configSHA, Supervisor: &self, Restarts: restarts, LastExit: rec.LastExit}
	if err := s.rt.saveProcess(op, rec); err != nil {
		return nil, err
	}
	cmd, logf, err := s.command(ctx)
	if err == nil {
		err = cmd.Start()
		_ = logf.Close() // the child holds its own descriptor
	}
	if err != nil {
		// A program that cannot be run now will not be by trying again.
		s.rt.appendLog(s.id, "cannot run the agent: %v", err)
		rec.process = process{BootID: bootID(), Supervisor: &self, Restarts: restarts, LastExit: "could not be run: " + err.Error(), Failed: true}
		return nil, s.rt.saveProcess(op, rec)
	}
	s.ran = true
	pid := cmd.Process.Pid
	start, statErr := startTimeOf(pid)
	exited := make(chan exit, 1)
	go func() {
		err := cmd.Wait()
		exited <- exitOf(cmd.ProcessState, err)
	}()
	if statErr != nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return nil, statErr
	}
	rec.process = process{PID: pid, StartTime: start, BootID: bootID(), ConfigSHA256: configSHA,
		Supervisor: &self, Restarts: restarts, LastExit: rec.LastExit}
	if err := s.rt.saveProcess(op, rec); err != nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return nil, err
	}
	if restarts > 0 {
		s.rt.appendLog(s.id, "supervisor restarted the agent (pid %d, restart %d)", pid, restarts)
	}
	return func(ctx context.Context) (exit, bool) {
		select {
		case e := <-exited:
			return e, true
		case <-ctx.Done():
			return exit{}, false
		}
	}, nil
}

// command is the agent's command: its environment is the supervisor's
// but for the mark of a supervisor, and it leads a session of its own, as
// the runtime starts agents, so that its process group is stopped as one.
func (s *supervisor) command(ctx context.Context) (*exec.Cmd, *os.File, error) {
	logf, err := s.rt.dir.AppendFile(logFile(s.id))
	if err != nil {
		return nil, nil, err
	}
	// Nothing may cancel the agent: it outlives the supervisor's stop,
	// which leaves it to whoever stops it.
	cmd := exec.CommandContext(context.WithoutCancel(ctx), s.argv[0], s.argv[1:]...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, envSupervisor+"=") })
	cmd.Dir = s.workDir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, logf, nil
}

// exitOf says how a child ended.
func exitOf(st *os.ProcessState, err error) exit {
	if st == nil {
		return exit{failed: true, what: "lost: " + err.Error()}
	}
	return exit{failed: !st.Success(), what: st.String()}
}

// watch waits for the exit of a process the supervisor did not start: its
// status is not the supervisor's to read, so it counts as a failure.
func watch(ctx context.Context, pid int, start uint64) (exit, bool) {
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for alive(pid, start) {
		select {
		case <-ctx.Done():
			return exit{}, false
		case <-tick.C:
		}
	}
	return exit{failed: true, what: "exited (status unknown: the supervisor adopted it)"}, true
}

// settle records the agent's exit and decides, under its restart policy
// and backoff, whether to restart it, after what pause, and how many
// restarts in a row that makes; ran is how long the agent ran.
func (s *supervisor) settle(ctx context.Context, e exit, ran time.Duration, inRow int) (again bool, row int, pause time.Duration, err error) {
	const op = "supervise"
	lock, err := s.rt.lockAgent(ctx, op, s.id)
	if err != nil {
		return false, inRow, 0, err
	}
	defer lock.Unlock()
	rec, err := s.rt.load(op, s.id)
	if agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return false, inRow, 0, nil
	}
	if err != nil {
		return false, inRow, 0, err
	}
	if !s.ours(rec) || rec.Stopping {
		return false, inRow, 0, nil
	}
	rec.LastExit = e.what
	row, pause, giveUp := s.backoff.next(inRow, ran)
	switch {
	case !restartsAfter(s.policy, e.failed):
		s.rt.appendLog(s.id, "agent (pid %d) %s; restart policy %q does not restart it", rec.PID, e.what, s.policy)
		return false, row, 0, s.rt.saveProcess(op, rec)
	case giveUp:
		rec.Failed = true
		s.rt.appendLog(s.id, "agent (pid %d) %s after %d restarts in a row; the restart limit (%d) leaves it stopped", rec.PID, e.what, inRow, s.backoff.Limit)
		return false, row, 0, s.rt.saveProcess(op, rec)
	}
	s.rt.appendLog(s.id, "agent (pid %d) %s; restarting it in %s under restart policy %q", rec.PID, e.what, pause, s.policy)
	return true, row, pause, s.rt.saveProcess(op, rec)
}
