//go:build linux

package local

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestBackoffNext pins the pacing and the bound of restarts in a row.
func TestBackoffNext(t *testing.T) {
	b := Backoff{Initial: time.Second, Max: 5 * time.Second, Limit: 4, Stable: time.Minute}
	tests := []struct {
		name     string
		inRow    int
		ran      time.Duration
		wantRow  int
		wantWait time.Duration
		giveUp   bool
	}{
		{"first exit waits the initial pause", 0, time.Second, 1, time.Second, false},
		{"the second in a row doubles it", 1, time.Second, 2, 2 * time.Second, false},
		{"the third doubles again", 2, time.Second, 3, 4 * time.Second, false},
		{"capped at the maximum", 3, time.Second, 4, 5 * time.Second, false},
		{"the limit gives up", 4, time.Second, 4, 0, true},
		{"a stable run starts the row afresh", 4, time.Minute, 1, time.Second, false},
		{"a run just short of stable does not", 4, time.Minute - time.Millisecond, 4, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, wait, giveUp := b.next(tt.inRow, tt.ran)
			if row != tt.wantRow || wait != tt.wantWait || giveUp != tt.giveUp {
				t.Errorf("next(%d, %s) = %d, %s, %t; want %d, %s, %t", tt.inRow, tt.ran, row, wait, giveUp, tt.wantRow, tt.wantWait, tt.giveUp)
			}
		})
	}
}

// TestBackoffDefaults: unset fields take the defaults, and a maximum
// below the initial pause cannot shorten it.
func TestBackoffDefaults(t *testing.T) {
	if got := (Backoff{}).withDefaults(); got != DefaultBackoff {
		t.Errorf("zero Backoff with defaults = %+v, want %+v", got, DefaultBackoff)
	}
	got := Backoff{Initial: time.Minute}.withDefaults()
	if got.Max < got.Initial {
		t.Errorf("Backoff{Initial: 1m} with defaults = %+v: its maximum is below its initial pause", got)
	}
	_, wait, _ := Backoff{Initial: time.Hour, Max: time.Hour, Limit: 3, Stable: time.Hour}.next(2, 0)
	if wait != time.Hour {
		t.Errorf("a maximum equal to the initial pause waits %s, want 1h", wait)
	}
}

// TestRestartsAfter pins each policy's answer, as the container engine's.
func TestRestartsAfter(t *testing.T) {
	tests := []struct {
		policy          string
		clean, failed   bool
		wantCheckFailed bool
	}{
		{RestartNo, false, false, false},
		{RestartOnFailure, false, true, false},
		{RestartAlways, true, true, false},
		{RestartUnlessStopped, true, true, false},
		{"sometimes", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			if err := CheckRestartPolicy(tt.policy); (err != nil) != tt.wantCheckFailed {
				t.Fatalf("CheckRestartPolicy(%q) = %v", tt.policy, err)
			}
			if tt.wantCheckFailed {
				return
			}
			if got := restartsAfter(tt.policy, false); got != tt.clean {
				t.Errorf("after a clean exit: restarts %t, want %t", got, tt.clean)
			}
			if got := restartsAfter(tt.policy, true); got != tt.failed {
				t.Errorf("after a failure: restarts %t, want %t", got, tt.failed)
			}
		})
	}
	if _, err := New(Options{StateDir: statedirtest.Open(t, t.TempDir()), Executable: "/nonexistent", RestartPolicy: "sometimes"}); err == nil {
		t.Error("New took an unknown restart policy")
	}
}

// policyRuntime is a test runtime over stateDir restarting under policy
// with backoff b.
func policyRuntime(t *testing.T, stateDir, policy string, b Backoff) *Runtime {
	t.Helper()
	opts := testOptions(t, statedirtest.Open(t, stateDir))
	opts.RestartPolicy, opts.Backoff = policy, b
	rt, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// waitFor polls the agent until done holds, failing with the last reading
// after a deadline.
func waitFor(t *testing.T, rt *Runtime, id, what string, done func(agentruntime.Agent) bool) agentruntime.Agent {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a, err := rt.Get(bg, id)
		if err == nil && done(a) {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent %s not %s in time: %+v (%v)", id, what, a, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// supervisorGone waits until the agent's supervisor has exited.
func supervisorGone(t *testing.T, rt *Runtime, id string) *record {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rec, err := rt.load("test", id)
		if err != nil {
			t.Fatal(err)
		}
		if !rec.supervised() {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("the supervisor of %s still runs: %+v", id, rec.process)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRestartPolicies kills an agent from outside, by SIGKILL (a failure)
// or SIGTERM (a clean exit, as the host exits 0 on it), and checks that
// each policy restarts it or leaves it stopped, with its last exit.
func TestRestartPolicies(t *testing.T) {
	quick := Backoff{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond, Limit: 3, Stable: time.Hour}
	tests := []struct {
		policy  string
		sig     syscall.Signal
		restart bool
	}{
		{RestartNo, syscall.SIGKILL, false},
		{RestartOnFailure, syscall.SIGKILL, true},
		{RestartOnFailure, syscall.SIGTERM, false},
		{RestartAlways, syscall.SIGTERM, true},
		{RestartUnlessStopped, syscall.SIGKILL, true},
	}
	for _, tt := range tests {
		t.Run(tt.policy+" "+tt.sig.String(), func(t *testing.T) {
			rt := policyRuntime(t, t.TempDir(), tt.policy, quick)
			a := provisionAndStart(t, rt, agentConfig("Policy", ""))
			pid := pidOf(t, a)
			if err := syscall.Kill(pid, tt.sig); err != nil {
				t.Fatal(err)
			}
			if tt.restart {
				got := waitFor(t, rt, a.ID, "restarted", func(g agentruntime.Agent) bool {
					return g.Health == agentruntime.HealthHealthy && g.Instance != a.Instance
				})
				if got.Restarts != 1 {
					t.Errorf("restarts = %d, want 1", got.Restarts)
				}
				return
			}
			rec := supervisorGone(t, rt, a.ID)
			if rec.LastExit == "" || rec.Failed {
				t.Errorf("process file %+v: want the last exit recorded, not failed", rec.process)
			}
			got, err := rt.Get(bg, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Running || got.Health != agentruntime.HealthStopped || got.Restarts != 0 || got.Failure != "" {
				t.Errorf("agent left down by its policy = %+v, want stopped, no restarts, no failure", got)
			}
		})
	}
}

// TestRestartLimitLeavesFailed kills an agent again after every restart:
// past the limit it stays down, reads failed with its restarts, last exit
// and log tail, and the next start runs it again with the count afresh.
func TestRestartLimitLeavesFailed(t *testing.T) {
	const limit = 2
	rt := policyRuntime(t, t.TempDir(), RestartAlways, Backoff{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond, Limit: limit, Stable: time.Hour})
	a := provisionAndStart(t, rt, agentConfig("Crash Loop", ""))
	for i := range limit {
		killAndWait(t, a.Instance)
		prev := a.Instance
		a = waitFor(t, rt, a.ID, "restarted", func(g agentruntime.Agent) bool {
			return g.Health == agentruntime.HealthHealthy && g.Instance != prev
		})
		if a.Restarts != i+1 {
			t.Fatalf("after kill %d: restarts = %d", i+1, a.Restarts)
		}
	}
	killAndWait(t, a.Instance)
	supervisorGone(t, rt, a.ID)
	got, err := rt.Get(bg, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Running || got.Health != agentruntime.HealthStopped || got.Restarts != limit {
		t.Fatalf("agent past its restart limit = %+v, want stopped with %d restarts", got, limit)
	}
	for _, want := range []string{"restart", "limit", "signal: killed", "agent host started"} {
		if !strings.Contains(got.Failure, want) {
			t.Errorf("failure %q does not say %q", got.Failure, want)
		}
	}
	// A fresh runtime, as the next terraform run, reads it failed too.
	if _, err := rt.Recover(bg); err != nil {
		t.Fatal(err)
	}
	if again, _ := newRuntime(t, rt.dir.Path()).Get(bg, a.ID); again.Failure == "" {
		t.Errorf("after Recover the agent reads %+v, want it failed still", again)
	}
	if err := rt.Start(bg, a.ID); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, rt, a.ID)
	if restarted, _ := rt.Get(bg, a.ID); restarted.Restarts != 0 || restarted.Failure != "" {
		t.Errorf("agent started again = %+v, want no restarts and no failure", restarted)
	}
}

// agentProcesses counts the live agent processes and supervisors of id.
func agentProcesses(rt *Runtime, id string) (agents, supervisors int) {
	for _, p := range rt.processesOf(id) {
		if p.Supervisor {
			supervisors++
		} else {
			agents++
		}
	}
	return agents, supervisors
}

// TestDeprovisionLeavesNoSupervisor: after a restart, a destroy leaves no
// process of the agent, supervisor or agent, and no lock file of either.
func TestDeprovisionLeavesNoSupervisor(t *testing.T) {
	dir := t.TempDir()
	rt := newRuntime(t, dir)
	a := provisionAndStart(t, rt, agentConfig("Gone For Good", ""))
	killAndWait(t, a.Instance)
	waitFor(t, rt, a.ID, "restarted", func(g agentruntime.Agent) bool {
		return g.Health == agentruntime.HealthHealthy && g.Instance != a.Instance
	})
	rec, err := rt.load("test", a.ID)
	if err != nil || rec.Supervisor == nil {
		t.Fatalf("record %+v (%v): want a supervisor", rec, err)
	}
	sup := *rec.Supervisor
	if err := rt.Deprovision(bg, a.ID); err != nil {
		t.Fatal(err)
	}
	if agents, sups := agentProcesses(rt, a.ID); agents+sups != 0 {
		t.Errorf("after Deprovision %d agent processes and %d supervisors run", agents, sups)
	}
	if alive(sup.PID, sup.StartTime) {
		t.Errorf("supervisor pid %d survived Deprovision", sup.PID)
	}
	for _, key := range []string{supervisorLockKey(a.ID), agentLockKey(a.ID)} {
		if _, err := rt.dir.Stat(".locks/" + key + ".lock"); err == nil {
			t.Errorf("lock file %s is left", key)
		}
	}
}

// TestSupervisorKilledNoSecondCopy kills the supervisor: the agent runs
// on, Recover adopts it under a new supervisor, and neither Recover nor
// Start, repeated, ever runs a second copy.
func TestSupervisorKilledNoSecondCopy(t *testing.T) {
	dir := t.TempDir()
	rt := newRuntime(t, dir)
	a := provisionAndStart(t, rt, agentConfig("Only Once", ""))
	killSupervisor(t, dir, a.ID)
	for range 2 {
		fresh := newRuntime(t, dir)
		if _, err := fresh.Recover(bg); err != nil {
			t.Fatal(err)
		}
		if err := fresh.Start(bg, a.ID); !agentruntime.IsKind(err, agentruntime.KindAlreadyRunning) {
			t.Fatalf("Start = %v, want already running", err)
		}
	}
	got := waitFor(t, rt, a.ID, "supervised again", func(g agentruntime.Agent) bool {
		rec, err := rt.load("test", g.ID)
		return err == nil && rec.supervised() && g.Health == agentruntime.HealthHealthy
	})
	if got.Instance != a.Instance {
		t.Errorf("instance %s, want the adopted %s", got.Instance, a.Instance)
	}
	if agents, sups := agentProcesses(rt, a.ID); agents != 1 || sups != 1 {
		t.Errorf("%d agent processes and %d supervisors run, want one of each", agents, sups)
	}
}

// TestSupervisorOutlivesProvider: agents started by a provider process
// that has exited are still supervised: a kill restarts them.
func TestSupervisorOutlivesProvider(t *testing.T) {
	dir := t.TempDir()
	if _, err := runStarter(dir, "Orphaned Supervised"); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, dir)
	const id = "orphaned-supervised"
	t.Cleanup(func() { _ = rt.Deprovision(bg, id) })
	waitHealthy(t, rt, id)
	a, err := rt.Get(bg, id)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := rt.load("test", id)
	if err != nil || !rec.supervised() {
		t.Fatalf("record %+v (%v): want its supervisor running after the provider exited", rec, err)
	}
	// Nothing here recovers or touches it: the supervisor alone restarts it.
	killAndWait(t, a.Instance)
	got := waitFor(t, rt, id, "restarted", func(g agentruntime.Agent) bool {
		return g.Health == agentruntime.HealthHealthy && g.Instance != a.Instance
	})
	if got.Restarts != 1 {
		t.Errorf("restarts = %d, want 1", got.Restarts)
	}
	ppid, _ := parentAndSession(t, pidOf(t, got))
	if ppid != rec.Supervisor.PID {
		t.Errorf("restarted agent's parent is %d, want its supervisor %s", ppid, strconv.Itoa(rec.Supervisor.PID))
	}
}
