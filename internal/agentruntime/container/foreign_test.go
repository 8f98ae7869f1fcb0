package container

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// foreignContainer runs, under name, an agent host in a container that
// carries none of the adapter's labels, as someone else's would, removed
// when the test ends. It returns a check that the container is still there
// as it was: the same container, under that name, running since it was
// started.
func foreignContainer(t *testing.T, rt *Runtime, name string) func(when string) {
	t.Helper()
	ctx := testContext(t)
	image, err := rt.BaseImage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	created, err := rt.cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name: name,
		Config: &containertypes.Config{
			Image:  image,
			Env:    []string{launch.ConfigEnvVar + "=" + string(agentConfig("Someone Else"))},
			Cmd:    []string{"--config-env", launch.ConfigEnvVar, "--host", "0.0.0.0", "--port", strconv.Itoa(containerPort)},
			Labels: map[string]string{"owner": "someone-else"},
		},
	})
	if err != nil {
		t.Fatalf("create the foreign container %s: %v", name, err)
	}
	t.Cleanup(func() {
		_, _ = rt.cli.ContainerRemove(context.Background(), created.ID, client.ContainerRemoveOptions{Force: true})
	})
	if _, err := rt.cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		t.Fatalf("start the foreign container %s: %v", name, err)
	}
	started := inspectContainer(t, rt, created.ID).State.StartedAt
	return func(when string) {
		t.Helper()
		c := inspectContainer(t, rt, created.ID)
		if c.Name != "/"+name || !c.State.Running || c.State.StartedAt != started {
			t.Errorf("%s: the foreign container %s is renamed, stopped or restarted: name %s, running %t, started at %s (was %s)",
				when, name, c.Name, c.State.Running, c.State.StartedAt, started)
		}
	}
}

// inspectContainer reads the container numbered id from the engine; the
// test fails when it is gone.
func inspectContainer(t *testing.T, rt *Runtime, id string) containertypes.InspectResponse {
	t.Helper()
	res, err := rt.cli.ContainerInspect(testContext(t), id, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatalf("inspect container %s: %v", shortID(id), err)
	}
	return res.Container
}

// TestForeignContainerSurvives puts a running container that is not an
// agent's under the agent's container name: provisioning, starting and
// stopping the agent are refused with an error that names the container as
// not the agent's, and neither they nor deprovisioning the agent stop,
// replace or remove it. Neither does the stop or the deprovision of an
// agent whose container was removed by hand and someone else's put under
// its name.
func TestForeignContainerSurvives(t *testing.T) {
	opts := testOptions(t, newScope(t))
	rt := newRuntime(t, opts)
	ctx := testContext(t)
	refused := func(op, name string, err error) {
		t.Helper()
		if !agentruntime.IsKind(err, agentruntime.KindConflict) || !strings.Contains(err.Error(), strconv.Quote(name)) ||
			!strings.Contains(err.Error(), "was not created for this agent") {
			t.Errorf("%s beside the foreign container %s = %v, want a conflict saying the container is not the agent's", op, name, err)
		}
	}

	const id = "foreign-held"
	name := rt.containerName(id)
	unchanged := foreignContainer(t, rt, name)
	_, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig("Foreign Held")})
	refused("Provision", name, err)
	refused("Start", name, rt.Start(ctx, id))
	refused("Stop", name, rt.Stop(ctx, id))
	unchanged("after the refused provision, start and stop")
	if err := rt.Deprovision(ctx, id); err != nil {
		t.Fatalf("Deprovision of the agent that never was: %v", err)
	}
	unchanged("after deprovisioning the agent that never was")

	a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Foreign Swapped")})
	swapped := rt.containerName(a.ID)
	docker(t, "rm", "-f", swapped)
	unchanged = foreignContainer(t, rt, swapped)
	refused("Start", swapped, rt.Start(ctx, a.ID))
	refused("Stop", swapped, rt.Stop(ctx, a.ID))
	unchanged("after the refused start and stop of the agent whose container was swapped")
	if err := rt.Deprovision(ctx, a.ID); err != nil {
		t.Fatalf("Deprovision of the agent whose container was swapped: %v", err)
	}
	unchanged("after deprovisioning the agent whose container was swapped")

	left, err := statedirtest.Leftovers(opts.StateDir.Join("."))
	if err != nil {
		t.Fatal(err)
	}
	// The lock of base image builds is the runtime's, not an agent's.
	left = slices.DeleteFunc(left, func(f string) bool { return f == filepath.Join(".locks", buildLockKey+".lock") })
	if len(left) > 0 {
		t.Errorf("the deprovisions left %v of the agents in the state dir", left)
	}
}
