package kube

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/rerun"
)

// TestCreateTakesOverDeadCreation: an agent that a create-only provision
// left behind, its process gone before anything recorded the agent, is
// taken over by a create of the very same spec from the same state dir,
// which makes whatever the creator did not; not by a create of another
// spec, nor from another state dir, which cannot tell whether the creator
// lives, nor while its creator lives; once claimed, by none.
func TestCreateTakesOverDeadCreation(t *testing.T) {
	if rerun.Part() == partCreate {
		createAndExit(t)
	}
	tests := []struct {
		name    string
		crashAt string // where the creator dies; empty: it exits once done
	}{
		{"creator exited", ""},
		{"creator killed once the deployment existed", "kube-provision-created"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions(t, newNamespace(t))
			rt := newRuntime(t, opts)
			ctx := testContext(t)
			if tt.crashAt != "" && !crashpoint.Enabled {
				t.Fatal("this test binary has no crash points: build it with -tags crashpoint, as make test does")
			}
			out, err := rerun.Run(t, partCreate, creatorNamespace+"="+opts.Namespace, creatorScope+"="+opts.Scope,
				creatorStateDir+"="+opts.StateDir.Path(), crashpoint.EnvVar+"="+tt.crashAt)
			switch {
			case tt.crashAt == "" && err != nil:
				t.Fatalf("the creator process failed: %v\n%s", err, out)
			case tt.crashAt != "" && !killedBySignal(err):
				t.Fatalf("the creator process ended with %v, want it killed at %s\n%s", err, tt.crashAt, out)
			}
			id := agentconfig.Slug(orphanName)
			t.Cleanup(func() { _ = rt.Deprovision(testContext(t), id) })
			if got, err := rt.Get(ctx, id); err != nil || !got.Unclaimed {
				t.Fatalf("Get = %+v, %v; want the agent unclaimed", got, err)
			}

			refused := map[string]struct {
				rt   *Runtime
				spec agentruntime.Spec
			}{
				"a create of another spec":        {rt, orphanSpec("# another config")},
				"a create from another state dir": {newRuntime(t, withStateDir(opts, statedirtest.Open(t, t.TempDir()))), orphanSpec()},
			}
			for what, c := range refused {
				if _, err := c.rt.Provision(ctx, c.spec); !agentruntime.IsKind(err, agentruntime.KindConflict) {
					t.Fatalf("%s = %v, want it refused as existing", what, err)
				}
			}
			if _, err := rt.Provision(ctx, orphanSpec()); err != nil {
				t.Fatalf("a create of the very same spec = %v, want it to take the agent over", err)
			}
			if err := rt.Start(ctx, id); err != nil {
				t.Fatal(err)
			}
			if h, err := agentruntime.WaitHealthy(ctx, rt, id); err != nil {
				t.Fatalf("the agent taken over: %s, %v", h, err)
			}

			// This process is its creator now, and lives.
			sameDir := newRuntime(t, withStateDir(opts, statedirtest.Open(t, opts.StateDir.Path())))
			if _, err := sameDir.Provision(ctx, orphanSpec()); !agentruntime.IsKind(err, agentruntime.KindConflict) {
				t.Fatalf("a create while the creator lives = %v, want it refused as existing", err)
			}
			if err := rt.Claim(ctx, id); err != nil {
				t.Fatal(err)
			}
			if got, err := rt.Get(ctx, id); err != nil || got.Unclaimed {
				t.Fatalf("Get after Claim = %+v, %v; want the agent claimed", got, err)
			}
			if _, err := rt.Provision(ctx, orphanSpec()); !agentruntime.IsKind(err, agentruntime.KindConflict) {
				t.Fatalf("a create after the claim = %v, want it refused as existing", err)
			}
			if err := rt.Deprovision(ctx, id); err != nil {
				t.Fatal(err)
			}
			if left, err := statedirtest.Leftovers(opts.StateDir.Path()); err != nil || len(left) > 0 {
				t.Errorf("the state dir keeps %v (%v) after the agent's deprovision", left, err)
			}
		})
	}
}

// The creator's part, and the variables that tell it where to create.
const (
	partCreate       = "create the orphan and exit"
	creatorNamespace = "A2A_TEST_CREATOR_NAMESPACE"
	creatorScope     = "A2A_TEST_CREATOR_SCOPE"
	creatorStateDir  = "A2A_TEST_CREATOR_STATE_DIR"
)

const orphanName = "Orphaned Create"

func orphanSpec(extra ...string) agentruntime.Spec {
	return agentruntime.Spec{Config: agentConfig(orphanName, extra...), CreateOnly: true}
}

// createAndExit plays the creator, a provider process of the test's state
// dir: it creates the agent, unless it dies at the crash point A2A_CRASH_AT
// names, and exits without the test binary's cleanups, as a provider
// process ends.
func createAndExit(t *testing.T) {
	opts := testOptions(t, os.Getenv(creatorNamespace))
	opts.Scope = os.Getenv(creatorScope)
	opts.StateDir = statedirtest.Open(t, os.Getenv(creatorStateDir))
	if _, err := newRuntime(t, opts).Provision(testContext(t), orphanSpec()); err != nil {
		t.Fatal(err)
	}
	os.Exit(0)
}

func withStateDir(opts Options, dir *statedir.Dir) Options {
	opts.StateDir = dir
	return opts
}

// killedBySignal reports whether err says a process was killed by SIGKILL.
func killedBySignal(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	status, ok := exit.Sys().(syscall.WaitStatus)
	return ok && status.Signaled() && status.Signal() == syscall.SIGKILL
}
