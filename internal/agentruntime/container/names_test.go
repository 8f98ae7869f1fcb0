package container

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/contracttest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// toOldName gives the agent's container and intent file the names the
// adapter gave them before names told scopes apart. The rest of what it
// made then is what it makes now, but for the labels of a volume of
// write-only values, which only the removal of orphaned volumes reads.
func toOldName(t *testing.T, rt *Runtime, id string) {
	t.Helper()
	docker(t, "rename", rt.containerName(id), rt.oldContainerName(id))
	dir := rt.opts.StateDir
	if err := os.Rename(dir.Join(intentFile(rt.containerName(id))), dir.Join(intentFile(rt.oldContainerName(id)))); err != nil {
		t.Fatal(err)
	}
}

// TestCollidingNamesCoexist runs two agents whose containers had one name
// under the old names (scope s with id "a-b", scope s-a with id "b"), the
// first of them still under it, as an agent created then is: each is its
// own agent, and removing one leaves the other running.
func TestCollidingNamesCoexist(t *testing.T) {
	scope := newScope(t)
	first := newRuntime(t, testOptions(t, scope))
	second := newRuntime(t, testOptions(t, cleanScope(t, scope+"-a")))
	if first.oldContainerName("a-b") != second.oldContainerName("b") {
		t.Fatalf("old names %q and %q do not collide, so this test shows nothing", first.oldContainerName("a-b"), second.oldContainerName("b"))
	}
	a := provisionStarted(t, first, agentruntime.Spec{Config: agentConfig("A B")})
	toOldName(t, first, a.ID)
	b := provisionStarted(t, second, agentruntime.Spec{Config: agentConfig("B")})
	if a.ID != "a-b" || b.ID != "b" {
		t.Fatalf("agents got ids %q and %q, want a-b and b", a.ID, b.ID)
	}
	for _, c := range []struct {
		rt *Runtime
		a  agentruntime.Agent
	}{{first, a}, {second, b}} {
		got, err := c.rt.Get(testContext(t), c.a.ID)
		if err != nil || got.Health != agentruntime.HealthHealthy || got.Port != c.a.Port {
			t.Errorf("Get(%s) in scope %s = %+v, %v; want it healthy on port %d", c.a.ID, c.rt.opts.Scope, got, err, c.a.Port)
		}
	}
	if err := second.Deprovision(testContext(t), b.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := first.Get(testContext(t), a.ID); err != nil || got.Health != agentruntime.HealthHealthy {
		t.Errorf("after the other agent went, Get(%s) = %+v, %v; want it healthy", a.ID, got, err)
	}
	if _, err := os.Stat(first.opts.StateDir.Join(intentFile(first.oldContainerName(a.ID)))); err != nil {
		t.Errorf("the other agent's deprovision took the intent file of %s: %v", a.ID, err)
	}
}

// TestOldNamedAgentIsManaged: an agent whose container and intent file
// have the names of before is found, listed and adopted as it is, and
// stopped, started, updated, damaged and destroyed as any other, taking
// its name at the first of those.
func TestOldNamedAgentIsManaged(t *testing.T) {
	opts := testOptions(t, newScope(t))
	rt := newRuntime(t, opts)
	spec := agentruntime.Spec{Config: agentConfig("Old Named", `[[skills]]`, `id = "s"`, `name = "${WO_SKILL}"`, `description = "d"`),
		WriteOnly: agentruntime.WriteOnlyValues{"WO_SKILL": "old-named-value"}}
	a := provisionStarted(t, rt, spec)
	toOldName(t, rt, a.ID)

	fresh := newRuntime(t, opts)
	ctx := testContext(t)
	rec, err := fresh.Recover(ctx)
	if err != nil || !slices.Contains(rec.IDs, a.ID) {
		t.Errorf("Recover = %+v, %v; want it to adopt %s", rec, err, a.ID)
	}
	list, err := fresh.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != a.ID || list[0].Health != agentruntime.HealthHealthy {
		t.Errorf("List = %+v, %v; want %s healthy", list, err, a.ID)
	}
	if got, err := fresh.Get(ctx, a.ID); err != nil || got.Port != a.Port || got.Health != agentruntime.HealthHealthy {
		t.Errorf("Get = %+v, %v; want it healthy on port %d", got, err, a.Port)
	}
	if logs, err := fresh.Logs(ctx, a.ID, 5); err != nil || len(logs) == 0 {
		t.Errorf("Logs = %q, %v; want the agent's log", logs, err)
	}

	if err := fresh.Stop(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if c := inspectAgent(t, fresh, a.ID).Container; c.Name != "/"+fresh.containerName(a.ID) {
		t.Errorf("the stopped agent's container is named %s, want %s", c.Name, fresh.containerName(a.ID))
	}
	if in := fresh.readIntent(a.ID); in == nil || in.Port != a.Port {
		t.Errorf("the intent file under the agent's name = %+v, want it moved there with port %d", in, a.Port)
	}
	// An update replaces the container.
	spec.Config = append(spec.Config, "\n# updated\n"...)
	provisionStarted(t, fresh, spec)
	contracttest.WantCardWith(t, a.CardURL, "old-named-value")

	// Removed by hand, it reads damaged; destroy leaves nothing of it.
	docker(t, "rm", "-f", fresh.containerName(a.ID))
	if _, err := fresh.Get(ctx, a.ID); !agentruntime.IsKind(err, agentruntime.KindDamaged) {
		t.Errorf("Get of the agent whose container is gone = %v, want damaged", err)
	}
	if err := fresh.Deprovision(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Get(ctx, a.ID); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		t.Errorf("Get after Deprovision = %v, want not found", err)
	}
	left, err := statedirtest.Leftovers(opts.StateDir.Join("."))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("Deprovision left %v in the state dir", left)
	}
	if _, err := os.Stat(opts.StateDir.Join(intentFile(fresh.oldContainerName(a.ID)))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the intent file under the old name is left: %v", err)
	}
}
