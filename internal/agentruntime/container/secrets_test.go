package container

import (
	"encoding/json"
	"strings"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/contracttest"
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
		Secrets:   agentruntime.SecretValues{"WO_SKILL": value},
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
	var volume string
	for _, m := range first.Container.Mounts {
		if m.Destination == secretDir {
			volume = m.Name
		}
	}
	if volume == "" {
		t.Fatalf("no volume at %s: %+v", secretDir, first.Container.Mounts)
	}

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

func TestWriteOnlyValuesRefusedForOwnImage(t *testing.T) {
	err := (&Runtime{}).Check(testContext(t), agentruntime.Spec{
		Config:  agentConfig("Own Image", "[runtime]", `image = "example.com/agent:1"`),
		Secrets: agentruntime.SecretValues{"TOKEN": "x"},
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
