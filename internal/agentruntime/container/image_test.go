package container

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
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
	// Two processes would each open the state dir themselves.
	other := opts
	other.StateDir = statedirtest.Open(t, opts.StateDir.Path())
	runtimes := []*Runtime{newRuntime(t, opts), newRuntime(t, other)}
	watch := watchEngine(t, runtimes[0].cli, client.Filters{}.Add("type", "image"))

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
	if built := imageBuilds(t, watch, ref); built != 1 {
		t.Errorf("the engine reports %d builds of the base image, want one", built)
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

// uniqueExecutable copies the agent host built for the tests with a random
// tail, which leaves it runnable but gives it a content hash, and so an
// image tag, of its own.
func uniqueExecutable(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "a2a-agent-host")
	writeUniqueExecutable(t, path)
	return path
}

// writeUniqueExecutable writes such a copy at path, as a rebuild there would.
func writeUniqueExecutable(t *testing.T, path string) {
	t.Helper()
	host, err := hostbuild.Path()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(host)
	if err != nil {
		t.Fatal(err)
	}
	tail := make([]byte, 32)
	_, _ = rand.Read(tail)
	if err := os.WriteFile(path, append(data, tail...), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestSupersededDevelopmentImagesPruned rebuilds the agent host at one
// place, as a developer does, and checks that building the image of a new
// build removes those of earlier builds from there, but keeps the one a
// container uses, those of builds from elsewhere, and images the adapter
// did not build.
func TestSupersededDevelopmentImagesPruned(t *testing.T) {
	needEngine(t)
	place := filepath.Join(t.TempDir(), "a2a-agent-host")
	var rt *Runtime
	build := func(at string) string {
		t.Helper()
		writeUniqueExecutable(t, at)
		opts := testOptions(t, "")
		opts.Executable = at
		rt = newRuntime(t, opts)
		ref, err := rt.BaseImage(testContext(t))
		if err != nil {
			t.Fatalf("build the base image of %s: %v", at, err)
		}
		t.Cleanup(func() { removeImageIfPresent(t, ref) })
		return ref
	}
	present := func(ref string) bool {
		t.Helper()
		ok, err := rt.imageExists(testContext(t), ref)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	unused := build(place)
	used := build(place)
	if present(unused) {
		t.Errorf("image %s of an earlier build is still on the engine after a new build from the same place", unused)
	}
	created, err := rt.cli.ContainerCreate(testContext(t), client.ContainerCreateOptions{Config: &containertypes.Config{Image: used}})
	if err != nil {
		t.Fatalf("create a container from %s: %v", used, err)
	}
	t.Cleanup(func() {
		_, _ = rt.cli.ContainerRemove(context.Background(), created.ID, client.ContainerRemoveOptions{Force: true})
	})
	elsewhere := build(filepath.Join(t.TempDir(), "a2a-agent-host"))
	foreign := buildForeignImage(t, rt)
	current := build(place)

	for _, ref := range []string{used, elsewhere, foreign, current} {
		if !present(ref) {
			t.Errorf("image %s is gone after a new build, want it kept", ref)
		}
	}
}

// buildForeignImage builds an image the adapter did not build, though
// named like the ones it does: the same content, no label of the adapter.
func buildForeignImage(t *testing.T, rt *Runtime) string {
	t.Helper()
	tail := make([]byte, 8)
	_, _ = rand.Read(tail)
	ref := fmt.Sprintf("%s:dev-%x", ImageRepository, tail)
	buildContext, err := baseImageContext(uniqueExecutable(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.cli.ImageBuild(testContext(t), buildContext, client.ImageBuildOptions{Tags: []string{ref}, Remove: true})
	if err != nil {
		t.Fatalf("build %s: %v", ref, err)
	}
	defer func() { _ = res.Body.Close() }()
	if err := readBuildOutput(res.Body); err != nil {
		t.Fatalf("build %s: %v", ref, err)
	}
	t.Cleanup(func() { removeImageIfPresent(t, ref) })
	return ref
}

// imageBuilds counts the builds of ref among the image events a watch
// opened before them saw. Docker reports each build as a "tag" of ref;
// Podman as a "build" named by the new image's id, so for Podman the build
// of the image ref names now is counted, and a second build (another id)
// shows as agents running different images, which the caller checks as
// well.
func imageBuilds(t *testing.T, watch *engineWatch, ref string) int {
	t.Helper()
	img, err := watch.cli.ImageInspect(context.Background(), ref)
	if err != nil {
		t.Fatalf("inspect the base image %s: %v", ref, err)
	}
	id := strings.TrimPrefix(img.ID, "sha256:")
	counts := map[string]int{}
	for _, m := range watch.imageEventsUntilNow(ref) {
		if name := m.Actor.Attributes["name"]; name == ref || strings.HasSuffix(name, "/"+ref) || name == id {
			counts[string(m.Action)]++
		}
	}
	return max(counts["tag"], counts["build"])
}

// removeImageIfPresent is removeImage for an image the test may have seen
// removed already.
func removeImageIfPresent(t *testing.T, ref string) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return
	}
	defer func() { _ = cli.Close() }()
	if _, err := cli.ImageRemove(context.Background(), ref, client.ImageRemoveOptions{Force: true, PruneChildren: true}); err != nil && !cerrdefs.IsNotFound(err) {
		t.Logf("cleanup: remove image %s: %v", ref, err)
	}
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
