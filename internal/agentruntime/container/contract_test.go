package container

import (
	"testing"

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
	contracttest.Run(t, contracttest.Harness{
		New:     func(t *testing.T) agentruntime.Runtime { return newRuntime(t, opts) },
		Config:  func(name string) []byte { return agentConfig(name) },
		Brought: broughtConfig,
		Durable: true,
		// No Kill: the engine restarts a container under its restart
		// policy, but what the tests can reach, `docker kill`, is a stop
		// the engine never undoes, and the container's process lives in
		// the engine's namespaces, which the tests' user may not signal.
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
