package kube

import (
	"context"
	"errors"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/contracttest"
)

func TestContract(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	contracttest.Run(t, contracttest.Harness{
		New:     func(t *testing.T) agentruntime.Runtime { return newRuntime(t, opts) },
		Config:  func(name string) []byte { return agentConfig(name) },
		Durable: true,
		FetchCard: func(ctx context.Context, a agentruntime.Agent) ([]byte, error) {
			return fetchCard(ctx, newRuntime(t, opts), a)
		},
		Unsupported: func(t *testing.T, rt agentruntime.Runtime) {
			for _, extra := range []string{"[runtime]\nimage = \"example.org/agent:1\"", "[runtime]\ncommand = [\"agent\"]"} {
				spec := agentruntime.Spec{Config: agentConfig("Contract Own Agent", extra)}
				for op, call := range map[string]func() error{
					"Check":     func() error { return rt.Check(testContext(t), spec) },
					"Provision": func() error { _, err := rt.Provision(testContext(t), spec); return err },
				} {
					if err := call(); !errors.Is(err, agentruntime.ErrUnsupported) {
						t.Errorf("%s of %q = %v, want unsupported", op, extra, err)
					}
				}
			}
		},
	})
}
