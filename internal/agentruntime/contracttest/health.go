package contracttest

import (
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// testReprovisionedStoppedAgent: an agent that has run reads stopped, not
// provisioned, once provisioned again with a new config, whatever the
// adapter does to provision it (a new container, a new record), so that a
// plan can predict its health.
func testReprovisionedStoppedAgent(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Restopped")
	startHealthy(t, rt, a.ID)
	for i, step := range []func() error{
		func() error { return rt.Stop(ctx(t), a.ID) },
		func() error {
			_, err := rt.Provision(ctx(t), agentruntime.Spec{Config: append(h.Config("Contract Restopped"), "\n# a new config\n"...)})
			return err
		},
	} {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
}
