package container

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/rerun"
)

// TestRemovedContainerKeepsPort removes an agent's container behind the
// adapter's back: created again, the agent gets its old host port back,
// and deprovisioning it leaves no intent file.
func TestRemovedContainerKeepsPort(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	spec := agentruntime.Spec{Config: agentConfig("Comeback Agent"), CreateOnly: true}
	a := provisionStarted(t, rt, spec)
	docker(t, "rm", "-f", rt.containerName(a.ID))
	// Still tracked, as damaged: a plan provisions it again.
	if _, err := rt.Get(testContext(t), a.ID); !agentruntime.IsKind(err, agentruntime.KindDamaged) || !strings.Contains(err.Error(), strconv.Itoa(a.Port)) {
		t.Errorf("Get of an agent whose container is gone = %v, want damaged, naming its port %d", err, a.Port)
	}
	again := provisionStarted(t, rt, spec)
	if again.Port != a.Port {
		t.Errorf("the agent created again got port %d, want its old port %d", again.Port, a.Port)
	}
	if err := rt.Deprovision(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.opts.StateDir.ReadFile(intentFile(rt.containerName(a.ID))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the intent file outlived the agent: %v", err)
	}
}

// TestRemovalCutShortIsFinished removes the container as a deprovision
// whose provider died mid-removal leaves it (the engine finishes a removal
// its client no longer waits for): the agent still reads as damaged, not
// gone, so that destroy deprovisions it, leaving nothing in the state dir.
func TestRemovalCutShortIsFinished(t *testing.T) {
	opts := testOptions(t, newScope(t))
	rt := newRuntime(t, opts)
	a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Cut Removal Agent")})
	docker(t, "rm", "-f", rt.containerName(a.ID))
	if _, err := rt.Get(testContext(t), a.ID); !agentruntime.IsKind(err, agentruntime.KindDamaged) {
		t.Fatalf("Get after the cut removal = %v, want damaged", err)
	}
	if err := rt.Deprovision(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Get(testContext(t), a.ID); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		t.Errorf("Get after Deprovision = %v, want not found", err)
	}
	left, err := statedirtest.Leftovers(opts.StateDir.Join("."))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("Deprovision left %v in the state dir", left)
	}
}

// TestDisconnectedAgentRecovers cuts a running agent off its network, as
// `docker network disconnect` does: it reads unhealthy, and a restart
// brings it back healthy, connected again.
func TestDisconnectedAgentRecovers(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Cut Off Agent")})
	name := rt.containerName(a.ID)
	for network := range inspectAgent(t, rt, a.ID).Container.NetworkSettings.Networks {
		docker(t, "network", "disconnect", network, name)
	}
	ctx := testContext(t)
	deadline := time.Now().Add(30 * time.Second)
	healthy := func() bool { got, _ := rt.Get(ctx, a.ID); return got.Health == agentruntime.HealthHealthy }
	for healthy() {
		if time.Now().After(deadline) {
			t.Fatal("the agent cut off its network still reads healthy")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := rt.Stop(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if h, err := agentruntime.WaitHealthy(ctx, rt, a.ID); err != nil {
		t.Fatalf("after a restart the agent is %s: %v", h, err)
	}
	if c := inspectAgent(t, rt, a.ID).Container; !connected(&c) {
		t.Error("the restarted agent is not connected to a network")
	}
}

// TestAsideContainerRemovedAtStart leaves, as a replace cut short would, the
// agent's old container running under another name: it must not keep the
// agent's port from the new container, nor outlive the start.
func TestAsideContainerRemovedAtStart(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	spec := agentruntime.Spec{Config: agentConfig("Aside Agent")}
	a := provisionStarted(t, rt, spec)
	docker(t, "rename", rt.containerName(a.ID), rt.containerName(a.ID)+"-replaced-cut")
	provisionStarted(t, rt, spec)
	containers, err := rt.containersOf(testContext(t), "test", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(containers) != 1 {
		t.Errorf("the agent has %d containers, want 1: %v", len(containers), containers)
	}
}

// TestCreateTakesOverDeadCreation: an agent whose create-only provision
// exited before its caller recorded it (its creator lock let go, its
// creation unclaimed) is taken over by a create of the very same spec
// only, and not while its creator lives; once claimed, no create takes it
// over.
func TestCreateTakesOverDeadCreation(t *testing.T) {
	if rerun.Part() == partCreateAndExit {
		createAndExit(t)
	}
	opts := testOptions(t, newScope(t))
	rt := newRuntime(t, opts)
	ctx := testContext(t)
	spec := agentruntime.Spec{Config: agentConfig("Orphaned Create"), CreateOnly: true}
	// The creator: another provider process of the state dir, which
	// creates the agent and exits.
	out, err := rerun.Run(t, partCreateAndExit, creatorScope+"="+opts.Scope, creatorStateDir+"="+opts.StateDir.Path(), creatorExecutable+"="+opts.Executable)
	if err != nil {
		t.Fatalf("the creator process: %v\n%s", err, out)
	}
	id := agentconfig.Slug("Orphaned Create")
	other := agentruntime.Spec{Config: agentConfig("Orphaned Create", "# another config"), CreateOnly: true}
	if _, err := rt.Provision(ctx, other); !agentruntime.IsKind(err, agentruntime.KindConflict) {
		t.Fatalf("a create of another spec = %v, want it refused as existing", err)
	}
	if got, err := rt.Get(ctx, id); err != nil || !got.Unclaimed {
		t.Fatalf("Get = %+v, %v; want the agent unclaimed", got, err)
	}
	if _, err := rt.Provision(ctx, spec); err != nil {
		t.Fatalf("a create of the very same spec = %v, want it to take the agent over", err)
	}
	// This process is the creator now, and lives.
	otherProcess := opts
	otherProcess.StateDir = statedirtest.Open(t, opts.StateDir.Path())
	if _, err := newRuntime(t, otherProcess).Provision(ctx, spec); !agentruntime.IsKind(err, agentruntime.KindConflict) {
		t.Fatalf("a create while the creator lives = %v, want it refused as existing", err)
	}
	if err := rt.Claim(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got, err := rt.Get(ctx, id); err != nil || got.Unclaimed {
		t.Fatalf("Get after Claim = %+v, %v; want the agent claimed", got, err)
	}
	if _, err := rt.Provision(ctx, spec); !agentruntime.IsKind(err, agentruntime.KindConflict) {
		t.Fatalf("a create after the claim = %v, want it refused as existing", err)
	}
	if err := rt.Deprovision(ctx, id); err != nil {
		t.Fatal(err)
	}
}

// The part of a creator that creates "Orphaned Create" and exits, and the
// variables that tell it where.
const (
	partCreateAndExit = "create and exit"
	creatorScope      = "A2A_TEST_CREATOR_SCOPE"
	creatorStateDir   = "A2A_TEST_CREATOR_STATE_DIR"
	creatorExecutable = "A2A_TEST_CREATOR_EXECUTABLE"
)

// createAndExit plays the creator: it creates the agent and exits, without
// the cleanups of the test binary, as a provider process that ends would.
func createAndExit(t *testing.T) {
	opts := Options{Scope: os.Getenv(creatorScope), Version: "test", Executable: os.Getenv(creatorExecutable),
		StateDir: statedirtest.Open(t, os.Getenv(creatorStateDir)), StopGracePeriod: 5 * time.Second}
	spec := agentruntime.Spec{Config: agentConfig("Orphaned Create"), CreateOnly: true}
	if _, err := newRuntime(t, opts).Provision(testContext(t), spec); err != nil {
		t.Fatal(err)
	}
	os.Exit(0)
}
