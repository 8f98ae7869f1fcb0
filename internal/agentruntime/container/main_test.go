package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// TestMain removes, once the tests have run, the base image they built
// from the agent host built for them (hostbuild), and that host.
func TestMain(m *testing.M) {
	code := m.Run()
	removeTestImage()
	hostbuild.Remove()
	os.Exit(code)
}

// requireEngine is set in CI, where a missing engine fails the tests.
var requireEngine = os.Getenv("A2A_REQUIRE_ENGINE") == "1"

// missing skips the test when a dependency is absent, or fails it in CI.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if requireEngine {
		t.Fatalf("A2A_REQUIRE_ENGINE=1 but "+format, args...)
	}
	t.Skipf(format, args...)
}

// The tests, and the docker CLI they call, use the engine DOCKER_HOST names
// (Docker's socket or Podman's, as scripts/podman-engine.sh starts it), else
// the platform default.
var engineCheck = sync.OnceValue(func() error {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return err
	}
	defer func() { _ = cli.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true})
	return err
})

// needEngine skips (or in CI fails) a test when no engine answers.
func needEngine(t testing.TB) {
	t.Helper()
	if err := engineCheck(); err != nil {
		missing(t, "no container engine answers: %v", err)
	}
}

// newScope returns a scope of its own for a test, and removes every
// container and volume left in it when the test ends, whatever the outcome.
func newScope(t testing.TB) string {
	t.Helper()
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return cleanScope(t, "t"+hex.EncodeToString(b))
}

// cleanScope removes every container and volume left in scope when the
// test ends.
func cleanScope(t testing.TB, scope string) string {
	t.Cleanup(func() { removeScope(t, scope) })
	return scope
}

func removeScope(t testing.TB, scope string) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return
	}
	defer func() { _ = cli.Close() }()
	ctx := context.Background()
	inScope := client.Filters{}.Add("label", labelScope+"="+scope)
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: inScope})
	if err != nil {
		t.Logf("cleanup of scope %s: %v", scope, err)
		return
	}
	for _, c := range res.Items {
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			t.Logf("cleanup: remove container %s: %v", c.ID, err)
		}
	}
	vols, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: inScope})
	if err != nil {
		t.Logf("cleanup of scope %s: %v", scope, err)
		return
	}
	for _, v := range vols.Items {
		if _, err := cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true}); err != nil {
			t.Logf("cleanup: remove volume %s: %v", v.Name, err)
		}
	}
}

// testOptions are the options of a runtime confined to scope, packing the
// agent host built for the tests, of the release it is given.
func testOptions(t testing.TB, scope string) Options {
	t.Helper()
	exe, err := hostbuild.Path()
	if err != nil {
		t.Fatal(err)
	}
	return Options{Scope: scope, Version: hostbuild.Release, Executable: exe, StateDir: statedirtest.Open(t, t.TempDir()), StopGracePeriod: 5 * time.Second}
}

// newRuntime connects to the engine, or skips the test when none answers.
func newRuntime(t testing.TB, opts Options) *Runtime {
	t.Helper()
	needEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := New(ctx, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}

// agentConfig is a minimal config the built-in host runs; extra lines are
// appended verbatim.
func agentConfig(name string, extra ...string) []byte {
	return []byte(fmt.Sprintf("[agent]\nname = %q\ndescription = \"container adapter test agent\"\n%s\n", name, strings.Join(extra, "\n")))
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// provisionStarted provisions and starts an agent and waits for its card.
func provisionStarted(t testing.TB, rt *Runtime, spec agentruntime.Spec) agentruntime.Agent {
	t.Helper()
	ctx := testContext(t)
	a, err := rt.Provision(ctx, spec)
	if err != nil {
		t.Fatalf("Provision: %v", err)
	}
	if err := rt.Start(ctx, a.ID); err != nil {
		t.Fatalf("Start: %v", err)
	}
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if h, err := agentruntime.WaitHealthy(wait, rt, a.ID); err != nil {
		logs, _ := rt.Logs(ctx, a.ID, 20)
		t.Fatalf("WaitHealthy: %s: %v; logs: %q", h, err, logs)
	}
	return a
}

// docker runs the docker CLI, as an operator acting out of band would.
func docker(t testing.TB, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		missing(t, "the docker CLI is not on PATH: %v", err)
	}
	out, err := exec.CommandContext(testContext(t), "docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// inspectAgent reads the agent's container straight from the engine.
func inspectAgent(t testing.TB, rt *Runtime, id string) client.ContainerInspectResult {
	t.Helper()
	res, err := rt.cli.ContainerInspect(testContext(t), rt.containerName(id), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatalf("inspect container of %s: %v", id, err)
	}
	return res
}

// removeTestImage removes the base image built from the tests' agent host,
// if no container uses it any more.
func removeTestImage() {
	exe, ok := hostbuild.Used()
	if !ok || engineCheck() != nil {
		return
	}
	ref, err := DefaultImageRef(hostbuild.Release, exe)
	if err != nil {
		return
	}
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return
	}
	defer func() { _ = cli.Close() }()
	if _, err := cli.ImageRemove(context.Background(), ref, client.ImageRemoveOptions{PruneChildren: true}); err != nil && !cerrdefs.IsNotFound(err) {
		fmt.Fprintf(os.Stderr, "remove test image %s: %v\n", ref, err)
	}
}
