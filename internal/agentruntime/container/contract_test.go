package container

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/contracttest"
)

func TestContract(t *testing.T) {
	needEngine(t)
	runContract(t, testOptions(t, newScope(t)))
}

// runContract puts runtimes built from opts through the shared suite; the
// transports (unix socket, TLS, ssh) differ only in opts.
func runContract(t *testing.T, opts Options) {
	kill := killAgentProcess(opts)
	if kill == nil {
		// CI runs beside its engine, as root: there the case must run.
		if requireEngine {
			t.Fatal("A2A_REQUIRE_ENGINE=1 but the tests cannot kill the engine's processes (they run as root beside a local engine): the case of a killed agent would not run")
		}
		t.Log("leaves out the case of a killed agent: the engine's processes are not this user's to kill")
	}
	contracttest.Run(t, contracttest.Harness{
		New:     func(t *testing.T) agentruntime.Runtime { return newRuntime(t, opts) },
		Config:  func(name string) []byte { return agentConfig(name) },
		Brought: broughtConfig,
		Durable: true,
		Kill:    kill,
		Crash: func(t *testing.T, id string) {
			// A kill from outside, then wait for the container to be dead.
			name := (&Runtime{opts: opts}).containerName(id)
			docker(t, "kill", name)
			docker(t, "wait", name)
		},
		OtherSettings: func(t *testing.T) agentruntime.Runtime {
			other := opts
			other.RestartPolicy = "on-failure"
			return newRuntime(t, other)
		},
	})
}

// killAgentProcess, where the tests run as root beside the engine, kills
// the agent's process itself, as a crash would: the engine, which did not
// stop it, restarts it under the restart policy. `docker kill` would not
// do: the engine takes it for a stop it must not undo. Elsewhere (a remote
// or rootless engine, whose processes the tests cannot signal) the case
// is left out.
func killAgentProcess(opts Options) func(t *testing.T, id string) {
	if os.Geteuid() != 0 || !engineOnThisMachine() {
		return nil
	}
	return func(t *testing.T, id string) {
		rt := newRuntime(t, opts)
		pid := inspectAgent(t, rt, id).Container.State.Pid
		if pid <= 0 {
			t.Fatalf("agent %s: the engine reports no process to kill (pid %d)", id, pid)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill -9 %d, the process of agent %s: %v", pid, id, err)
		}
		// Dead once the engine no longer reports it as the container's
		// process (it may have started the next one already).
		deadline := time.Now().Add(30 * time.Second)
		for inspectAgent(t, rt, id).Container.State.Pid == pid {
			if time.Now().After(deadline) {
				t.Fatalf("agent %s: its process %d still runs 30s after kill -9", id, pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// engineOnThisMachine: the engine is reached through a unix socket, so its
// processes are this machine's.
func engineOnThisMachine() bool {
	host := os.Getenv("DOCKER_HOST")
	return host == "" || strings.HasPrefix(host, "unix://")
}
