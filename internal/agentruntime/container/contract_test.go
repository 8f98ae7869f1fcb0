package container

import (
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/contracttest"
)

func TestContract(t *testing.T) {
	needEngine(t)
	scope := newScope(t)
	opts := testOptions(t, scope)
	contracttest.Run(t, contracttest.Harness{
		New:     func(t *testing.T) agentruntime.Runtime { return newRuntime(t, opts) },
		Config:  func(name string) []byte { return agentConfig(name) },
		Durable: true,
		Crash: func(t *testing.T, id string) {
			// A kill from outside, then wait for the container to be dead.
			name := (&Runtime{opts: opts}).containerName(id)
			docker(t, "kill", name)
			docker(t, "wait", name)
		},
	})
}
