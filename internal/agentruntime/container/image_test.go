package container

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestBaseImageBuiltOnce provisions ten agents at once, as terraform's
// parallel operations do, through two runtimes sharing a state dir, as two
// provider processes would, from an executable no image exists for yet.
func TestBaseImageBuiltOnce(t *testing.T) {
	needEngine(t)
	exe := uniqueExecutable(t)
	opts := testOptions(t, "")
	opts.Executable = exe
	probe := &Runtime{opts: opts}
	ref, err := probe.defaultImageRef()
	if err != nil {
		t.Fatal(err)
	}
	// Registered before the scope, so it runs after the containers are gone.
	t.Cleanup(func() { removeImage(t, ref) })
	opts.Scope = newScope(t)
	runtimes := []*Runtime{newRuntime(t, opts), newRuntime(t, opts)}

	const agents = 10
	var wg sync.WaitGroup
	errs := make([]error, agents)
	for i := range agents {
		wg.Go(func() {
			_, errs[i] = runtimes[i%2].Provision(testContext(t), agentruntime.Spec{Config: agentConfig(fmt.Sprintf("Parallel %d", i))})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Provision %d: %v", i, err)
		}
	}
	if built := runtimes[0].imagesBuilt.Load() + runtimes[1].imagesBuilt.Load(); built != 1 {
		t.Errorf("the base image was built %d times, want once", built)
	}
	list, err := runtimes[0].List(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != agents {
		t.Fatalf("List = %d agents, want %d", len(list), agents)
	}
	// Compared by id: engines spell the reference back differently (Podman
	// as docker.io/library/<name>).
	built, err := runtimes[0].cli.ImageInspect(testContext(t), ref)
	if err != nil {
		t.Fatalf("inspect the base image %s: %v", ref, err)
	}
	for _, a := range list {
		if img := inspectAgent(t, runtimes[0], a.ID).Container.Image; img != built.ID {
			t.Errorf("agent %s runs image %s, want %s (%s)", a.ID, img, built.ID, ref)
		}
	}
}

// uniqueExecutable copies the test binary with a random tail, which leaves
// it runnable but gives it a content hash, and so an image tag, of its own.
func uniqueExecutable(t *testing.T) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	tail := make([]byte, 32)
	_, _ = rand.Read(tail)
	path := filepath.Join(t.TempDir(), "terraform-provider-a2a")
	if err := os.WriteFile(path, append(data, tail...), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func removeImage(t *testing.T, ref string) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return
	}
	defer func() { _ = cli.Close() }()
	if _, err := cli.ImageRemove(context.Background(), ref, client.ImageRemoveOptions{Force: true, PruneChildren: true}); err != nil {
		t.Logf("cleanup: remove image %s: %v", ref, err)
	}
}
