package container

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/contracttest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// TestWriteOnlyValues checks where a container agent's write-only values
// go: into its volume, readable by the agent after an engine restart and a
// recreation, never into what `docker inspect` shows, and away with the
// agent.
func TestWriteOnlyValues(t *testing.T) {
	t.Setenv("A2A_TEST_WO_ALLOWED", "first")
	rt := newRuntime(t, testOptions(t, newScope(t)))
	const value = "wo-value-5d1c9e"
	spec := agentruntime.Spec{
		Config: agentConfig("Secret Agent", `# greets ${A2A_TEST_WO_ALLOWED}`,
			`[[skills]]`, `id = "s"`, `name = "${WO_SKILL}"`, `description = "d"`),
		Allowlist: &agentruntime.EnvAllowlist{Name: "test", Variables: []string{"A2A_TEST_WO_ALLOWED"}},
		WriteOnly: agentruntime.WriteOnlyValues{"WO_SKILL": value},
	}
	a := provisionStarted(t, rt, spec)
	contracttest.WantCardWith(t, a.CardURL, value)

	first := inspectAgent(t, rt, a.ID)
	raw, err := json.Marshal(first.Container)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), value) {
		t.Errorf("docker inspect shows the write-only value:\n%s", raw)
	}
	if !strings.Contains(string(raw), `"a2a.write-only-env":"WO_SKILL"`) {
		t.Errorf("docker inspect does not name the write-only variable, so the search above may have missed it:\n%s", raw)
	}
	volume := writeOnlyVolume(t, first.Container)

	// The engine restarts it without the runtime.
	docker(t, "restart", rt.containerName(a.ID))
	waitCard(t, rt, a.ID)
	contracttest.WantCardWith(t, a.CardURL, value)

	// A new value of an allowlisted variable recreates the container at
	// start, which takes the values over from the old one.
	ctx := testContext(t)
	if err := rt.Stop(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2A_TEST_WO_ALLOWED", "second")
	if err := rt.Start(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if inspectAgent(t, rt, a.ID).Container.ID == first.Container.ID {
		t.Fatal("the container was not recreated")
	}
	waitCard(t, rt, a.ID)
	contracttest.WantCardWith(t, a.CardURL, value)

	if err := rt.Deprovision(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.cli.VolumeInspect(ctx, volume, client.VolumeInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Errorf("volume %s of the deprovisioned agent: inspect = %v, want not found", volume, err)
	}
}

// TestRemovedWithoutVolumesLeavesNoValues removes the agent's container
// behind the adapter's back without its volumes, as `docker rm -f` does:
// neither the provision that creates it again nor the deprovision after a
// second such removal leaves a volume of the agent, nor any volume that
// holds its write-only value.
func TestRemovedWithoutVolumesLeavesNoValues(t *testing.T) {
	since := time.Now().Add(-time.Second)
	rt := newRuntime(t, testOptions(t, newScope(t)))
	const value = "wo-orphan-7c41b2"
	spec := agentruntime.Spec{
		Config:    agentConfig("Orphan Volume Agent", `[[skills]]`, `id = "s"`, `name = "${WO_SKILL}"`, `description = "d"`),
		WriteOnly: agentruntime.WriteOnlyValues{"WO_SKILL": value},
	}
	a := provisionStarted(t, rt, spec)
	ctx := testContext(t)
	removeKeepingVolumes := func() string {
		t.Helper()
		c := inspectAgent(t, rt, a.ID).Container
		volume := writeOnlyVolume(t, c)
		if _, err := rt.cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := rt.cli.VolumeInspect(ctx, volume, client.VolumeInspectOptions{}); err != nil {
			t.Fatalf("volume %s went with its container, so nothing is left to clean up: %v", volume, err)
		}
		return volume
	}
	gone := func(volume, when string) {
		t.Helper()
		if _, err := rt.cli.VolumeInspect(ctx, volume, client.VolumeInspectOptions{}); !cerrdefs.IsNotFound(err) {
			t.Errorf("volume %s of the removed container %s: inspect = %v, want not found", volume, when, err)
		}
	}

	first := removeKeepingVolumes()
	provisionStarted(t, rt, spec)
	contracttest.WantCardWith(t, a.CardURL, value)
	gone(first, "after the agent was provisioned again")

	second := removeKeepingVolumes()
	if held := volumesHolding(t, rt, since, value); !slices.Contains(held, second) {
		t.Fatalf("volumes holding the value = %v, want the orphaned %s among them: the search below would find nothing", held, second)
	}
	if err := rt.Deprovision(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	gone(second, "after the agent was deprovisioned")
	res, err := rt.cli.VolumeList(ctx, client.VolumeListOptions{Filters: client.Filters{}.
		Add("label", labelScope+"="+rt.opts.Scope, labelAgentID+"="+a.ID)})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Items {
		t.Errorf("volume %s of the deprovisioned agent is left", v.Name)
	}
	if held := volumesHolding(t, rt, since, value); len(held) > 0 {
		t.Errorf("volumes %v still hold the write-only value", held)
	}
}

// writeOnlyVolume is the volume holding the write-only values of container c.
func writeOnlyVolume(t *testing.T, c containertypes.InspectResponse) string {
	t.Helper()
	for _, m := range c.Mounts {
		if m.Destination == launch.WriteOnlyDir && m.Name != "" {
			return m.Name
		}
	}
	t.Fatalf("container %s has no volume at %s: %+v", shortID(c.ID), launch.WriteOnlyDir, c.Mounts)
	return ""
}

// volumesHolding names the volumes created on the engine since then whose
// file of write-only values holds value: a probe container, never
// started, mounts each where agents have theirs, and the engine copies the
// file out of it, as it does when a container is replaced. Volumes of
// other scopes' agents, other tests' on a shared engine, are left alone.
func volumesHolding(t *testing.T, rt *Runtime, since time.Time, value string) []string {
	t.Helper()
	ctx := testContext(t)
	res, err := rt.cli.VolumeList(ctx, client.VolumeListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	image, err := rt.BaseImage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, v := range res.Items {
		if created, err := time.Parse(time.RFC3339, v.CreatedAt); (err == nil && created.Before(since)) ||
			(v.Labels[labelScope] != "" && v.Labels[labelScope] != rt.opts.Scope) {
			continue
		}
		if bytes.Contains(writeOnlyFileIn(t, rt, image, v.Name), []byte(value)) {
			held = append(held, v.Name)
		}
	}
	return held
}

// writeOnlyFileIn returns the file of write-only values in volume, if any.
func writeOnlyFileIn(t *testing.T, rt *Runtime, image, volume string) []byte {
	t.Helper()
	ctx := testContext(t)
	probe, err := rt.cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &containertypes.Config{Image: image, Labels: map[string]string{labelScope: rt.opts.Scope}},
		HostConfig: &containertypes.HostConfig{Mounts: []mount.Mount{
			{Type: mount.TypeVolume, Source: volume, Target: launch.WriteOnlyDir, ReadOnly: true},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The volume is not the probe's: it stays.
	defer func() {
		_, _ = rt.cli.ContainerRemove(context.Background(), probe.ID, client.ContainerRemoveOptions{Force: true})
	}()
	res, err := rt.cli.CopyFromContainer(ctx, probe.ID, client.CopyFromContainerOptions{SourcePath: launch.WriteOnlyFilePath})
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Content.Close() }()
	tr := tar.NewReader(res.Content)
	if _, err := tr.Next(); err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestWriteOnlyValuesRefusedForOwnImage(t *testing.T) {
	_, err := (&Runtime{}).Check(testContext(t), agentruntime.Spec{
		Config:    agentConfig("Own Image", "[runtime]", `image = "example.com/agent:1"`),
		WriteOnly: agentruntime.WriteOnlyValues{"TOKEN": "x"},
	})
	if !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) || !strings.Contains(err.Error(), "TOKEN") {
		t.Errorf("Check = %v, want an invalid config naming TOKEN", err)
	}
}

func waitCard(t *testing.T, rt *Runtime, id string) {
	t.Helper()
	if h, err := agentruntime.WaitHealthy(testContext(t), rt, id); err != nil {
		t.Fatalf("WaitHealthy: %s: %v", h, err)
	}
}
