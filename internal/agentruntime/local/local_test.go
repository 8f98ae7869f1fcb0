//go:build linux

package local

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/contracttest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

func TestContract(t *testing.T) {
	stateDir := t.TempDir()
	contracttest.Run(t, contracttest.Harness{
		New:     func(t *testing.T) agentruntime.Runtime { return newRuntime(t, stateDir) },
		Config:  func(name string) []byte { return agentConfig(name, "") },
		Brought: broughtConfig,
		Durable: true,
		Crash: func(t *testing.T, id string) {
			// The supervisor first, or it would restart the agent.
			killSupervisor(t, stateDir, id)
			killAgent(t, stateDir, id)
		},
		Kill:           func(t *testing.T, id string) { killAgent(t, stateDir, id) },
		KillSupervisor: func(t *testing.T, id string) { killSupervisor(t, stateDir, id) },
		Unsupported: func(t *testing.T, rt agentruntime.Runtime) {
			spec := agentruntime.Spec{Config: agentConfig("With Image", "[runtime]\nimage = \"example/agent:1\"\n")}
			for op, call := range map[string]func() error{
				"Check":     func() error { _, err := rt.Check(context.Background(), spec); return err },
				"Provision": func() error { _, err := rt.Provision(context.Background(), spec); return err },
			} {
				err := call()
				if !agentruntime.IsKind(err, agentruntime.KindUnsupported) {
					t.Fatalf("%s of a config with an image = %v, want unsupported", op, err)
				}
				if !strings.Contains(err.Error(), "container {}") {
					t.Errorf("%s error %q does not point at the container adapter", op, err)
				}
			}
		},
	})
}

func newRuntime(t *testing.T, stateDir string) *Runtime {
	t.Helper()
	opts := testOptions(t, statedirtest.Open(t, stateDir))
	opts.StopGracePeriod = 5 * time.Second
	opts.Backoff = testBackoff
	rt, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// killAndWait SIGKILLs the process and returns once it is dead: gone, or
// a zombie waiting for its parent.
func killAndWait(t *testing.T, instance string) {
	t.Helper()
	pid, err := strconv.Atoi(instance)
	if err != nil {
		t.Fatalf("instance %q is not a pid", instance)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for {
		id, err := readProc(pid)
		if err != nil || id.state == 'Z' || id.state == 'X' {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// testBackoff restarts agents soon, so that tests of restarts are quick.
var testBackoff = Backoff{Initial: 100 * time.Millisecond, Max: time.Second, Limit: 5, Stable: time.Hour}

// killAgent SIGKILLs the running agent id of the state dir, as a crash
// would, and returns once it is dead.
func killAgent(t *testing.T, stateDir, id string) {
	t.Helper()
	a, err := newRuntime(t, stateDir).Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	killAndWait(t, a.Instance)
}

// killSupervisor SIGKILLs the supervisor of agent id of the state dir and
// returns once it is dead.
func killSupervisor(t *testing.T, stateDir, id string) {
	t.Helper()
	rec, err := newRuntime(t, stateDir).load("test", id)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.supervised() {
		t.Fatalf("agent %s has no supervisor running: %+v", id, rec.process)
	}
	killAndWait(t, strconv.Itoa(rec.Supervisor.PID))
}
