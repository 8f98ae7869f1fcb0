//go:build linux

package local

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/hostexe"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// The runtime's side of supervision (see supervisor.go for the
// supervisor's): how it starts a supervisor, and how it makes one let go.

// supervisorCommand is the command of the supervisor that runs agent, the
// agent's command: the agent host re-run as a supervisor (it is of the
// provider's release, so it reads these flags as this runtime writes
// them), in the agent's environment marked as a supervisor's, leading a
// session of its own so that it outlives this process.
func (r *Runtime) supervisorCommand(ctx context.Context, rec *record, agent *exec.Cmd) (*exec.Cmd, error) {
	if err := hostexe.Check(context.WithoutCancel(ctx), r.exe, r.version); err != nil {
		return nil, fmt.Errorf("an agent's supervisor is the agent host: %w; or set executable in the local block to such a host", err)
	}
	b := r.backoff
	args := []string{launch.SupervisorArg,
		"--" + supStateDirFlag, r.dir.Path(), "--" + supAgentFlag, rec.ID, "--" + supPolicyFlag, r.policy,
		"--" + supInitialFlag, b.Initial.String(), "--" + supMaxFlag, b.Max.String(),
		"--" + supLimitFlag, strconv.Itoa(b.Limit), "--" + supStableFlag, b.Stable.String()}
	if agent.Dir != "" {
		args = append(args, "--"+supDirFlag, agent.Dir)
	}
	args = append(append(args, "--", agent.Path), agent.Args[1:]...)
	// The supervisor must outlive ctx and this process: nothing may cancel it.
	cmd := exec.CommandContext(context.WithoutCancel(ctx), r.exe, args...)
	cmd.Env = append(slices.Clone(agent.Env), envSupervisor+"=1")
	cmd.Dir = r.dir.Path()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, nil
}

// unsupervise makes rec's supervisor, if it runs, let go of the agent: the
// intent is written first, so that a supervisor the signal misses restarts
// nothing either, then it is told to exit and waited for. The agent
// itself is left as it is. The caller holds the agent's lock.
func (r *Runtime) unsupervise(ctx context.Context, op string, rec *record) error {
	if !rec.supervised() {
		return nil
	}
	rec.Stopping = true
	if err := r.saveProcess(op, rec); err != nil {
		return err
	}
	sup := *rec.Supervisor
	_ = signalGroup(sup.PID, sup.StartTime, syscall.SIGTERM)
	_ = signalGroup(sup.PID, sup.StartTime, syscall.SIGCONT)
	if r.waitExit(ctx, sup.PID, sup.StartTime, supervisorStopWait) {
		return nil
	}
	r.appendLog(rec.ID, "supervisor (pid %d) did not exit within %s; killing it", sup.PID, supervisorStopWait)
	_ = signalGroup(sup.PID, sup.StartTime, syscall.SIGKILL)
	if !r.waitExit(context.WithoutCancel(ctx), sup.PID, sup.StartTime, killWait) {
		return agentruntime.Errorf(agentruntime.KindBackend, op, rec.ID, nil, "supervisor pid %d survived SIGKILL; stop it by hand", sup.PID)
	}
	return nil
}

// unsuperviseNow is unsupervise under the agent's lock, taken here; it
// returns the record as it is once the supervisor let go.
func (r *Runtime) unsuperviseNow(ctx context.Context, op, id string) (*record, error) {
	lock, err := r.lockAgent(ctx, op, id)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	rec, err := r.load(op, id)
	if err != nil {
		return nil, err
	}
	return rec, r.unsupervise(ctx, op, rec)
}

// resupervise gives a running agent whose supervisor is gone (killed, or
// the agent predates supervision) a new one, which watches the agent
// rather than start another; the supervisor lock keeps a second from
// running. Best effort: an agent left unsupervised still runs, and the log
// says why. The caller holds the agent's lock.
func (r *Runtime) resupervise(ctx context.Context, op string, rec *record) {
	if rec.supervised() || rec.Stopping || !rec.running() {
		return
	}
	raw, err := r.readConfig(rec)
	if err != nil {
		return // a damaged agent's own operations report it
	}
	agent, err := r.agentCommand(ctx, rec, raw)
	var cmd *exec.Cmd
	if err == nil {
		cmd, err = r.supervisorCommand(ctx, rec, agent)
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		r.appendLog(rec.ID, "agent (pid %d) runs without a supervisor, and none can be started: %v", rec.PID, err)
		return
	}
	pid := cmd.Process.Pid
	start, err := startTimeOf(pid)
	r.reap(cmd)
	if err != nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return
	}
	rec.Supervisor = &pidStart{PID: pid, StartTime: start}
	if err := r.saveProcess(op, rec); err != nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return
	}
	r.appendLog(rec.ID, "agent (pid %d) had lost its supervisor; supervisor pid %d watches it now", rec.PID, pid)
}

// removeSupervisorLock deletes the supervisor lock file of agent id, gone
// for good; every process of it has been stopped, so none holds it.
func (r *Runtime) removeSupervisorLock(ctx context.Context, op, id string) error {
	wait, cancel := context.WithTimeout(ctx, claimWait)
	defer cancel()
	lock, err := r.dir.LockKey(wait, supervisorLockKey(id))
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindConflict, op, id, err, "a supervisor of the agent still runs; destroy it again")
	}
	return r.removeLock(op, id, lock)
}

// failureTail is how many lines of its log a failed agent's status shows.
const failureTail = 10

// failure says why rec's agent stays down, with the end of its log.
func (r *Runtime) failure(ctx context.Context, rec *record) string {
	msg := fmt.Sprintf("the agent exited (%s) after %d restarts, and its restart policy's limit (%d restarts in a row) left it stopped; "+
		"terraform apply starts it again", orUnknown(rec.LastExit), rec.Restarts, r.backoff.Limit)
	if lines, err := tailLines(ctx, r.dir, logFile(rec.ID), failureTail); err == nil && len(lines) > 0 {
		msg += "; its log ends:\n" + strings.Join(lines, "\n")
	}
	return msg
}

// orUnknown is what, or "status unknown" when it is empty.
func orUnknown(what string) string {
	if what == "" {
		return "status unknown"
	}
	return what
}
