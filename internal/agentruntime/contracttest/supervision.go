package contracttest

import (
	"slices"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// restartWithin bounds how long a killed agent may take to run again:
// its runtime's backoff and its start.
const restartWithin = 60 * time.Second

// quietFor is how long an agent that must not come back is watched after
// its stop: longer than the first pause of any runtime's restarts.
const quietFor = 3 * time.Second

// waitAgent polls agent id until done holds, failing the test with the
// last reading when it does not within restartWithin.
func waitAgent(t *testing.T, rt agentruntime.Runtime, id string, what string, done func(agentruntime.Agent) bool) agentruntime.Agent {
	t.Helper()
	deadline := time.Now().Add(restartWithin)
	for {
		a, err := rt.Get(ctx(t), id)
		if err == nil && done(a) {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent %s: not %s within %s: last read %+v (error %v)", id, what, restartWithin, a, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// restarted holds for a healthy, running agent restarted more times than
// before. Its instance may read the same: an engine restarts a container
// in place, under its id.
func restarted(before agentruntime.Agent) func(agentruntime.Agent) bool {
	return func(a agentruntime.Agent) bool {
		return a.Health == agentruntime.HealthHealthy && a.Instance != "" && a.Restarts > before.Restarts
	}
}

// testKilledRestarts: an agent killed from outside (it crashed) comes back
// under its restart policy, counted as a restart, and
// a fresh runtime (the next provider process) sees the same.
func testKilledRestarts(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Killed")
	startHealthy(t, rt, a.ID)
	before, err := rt.Get(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if before.Restarts != 0 {
		t.Fatalf("a started agent reads %d restarts, want 0", before.Restarts)
	}
	h.Kill(t, a.ID)
	first := waitAgent(t, h.New(t), a.ID, "restarted", restarted(before))
	if first.Restarts != 1 {
		t.Errorf("after one kill the agent reads %d restarts, want 1", first.Restarts)
	}
	h.Kill(t, a.ID)
	second := waitAgent(t, rt, a.ID, "restarted again", restarted(first))
	if second.Restarts != 2 {
		t.Errorf("after two kills the agent reads %d restarts, want 2", second.Restarts)
	}
	// A start by the runtime starts the count afresh.
	if err := rt.Stop(ctx(t), a.ID); err != nil {
		t.Fatal(err)
	}
	startHealthy(t, rt, a.ID)
	if got := getAgent(t, rt, a.ID); got.Restarts != 0 {
		t.Errorf("an agent started again reads %d restarts, want 0", got.Restarts)
	}
}

// testStoppedStaysDown: a stop is never undone by the restart policy, even
// just after a restart.
func testStoppedStaysDown(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Stays Down")
	startHealthy(t, rt, a.ID)
	before := getAgent(t, rt, a.ID)
	h.Kill(t, a.ID)
	waitAgent(t, rt, a.ID, "restarted", restarted(before))
	if err := rt.Stop(ctx(t), a.ID); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(quietFor); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if got := getAgent(t, rt, a.ID); got.Running || got.Health != agentruntime.HealthStopped {
			t.Fatalf("a stopped agent came back: %+v", got)
		}
	}
}

// testSupervisorKilled: when what supervises an agent is killed, the
// agent runs on; the next runtime adopts it, never starting a second
// copy, and supervises it again.
func testSupervisorKilled(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Supervisor Killed")
	startHealthy(t, rt, a.ID)
	before := getAgent(t, rt, a.ID)
	h.KillSupervisor(t, a.ID)
	fresh := h.New(t)
	rec, err := fresh.Recover(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rec.IDs, a.ID) {
		t.Fatalf("Recover = %+v, want it to adopt %s", rec, a.ID)
	}
	adopted := getAgent(t, fresh, a.ID)
	if adopted.Instance != before.Instance || adopted.Health != agentruntime.HealthHealthy {
		t.Fatalf("adopted agent = %+v, want the healthy instance %s", adopted, before.Instance)
	}
	if err := fresh.Start(ctx(t), a.ID); !agentruntime.IsKind(err, agentruntime.KindAlreadyRunning) {
		t.Fatalf("Start of the adopted agent = %v, want already running", err)
	}
	// Supervised again: a kill now restarts it.
	h.Kill(t, a.ID)
	waitAgent(t, fresh, a.ID, "restarted by its new supervisor", restarted(adopted))
}
