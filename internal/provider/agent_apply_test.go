package provider

import (
	"context"
	"fmt"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// unreadableRuntime is the in-memory adapter with reads of provisioned
// agents failing while failReads is set, as an engine that stops answering
// between two calls would.
type unreadableRuntime struct {
	*memory.Runtime
	failReads atomic.Bool
}

func (r *unreadableRuntime) Get(ctx context.Context, id string) (agentruntime.Agent, error) {
	a, err := r.Runtime.Get(ctx, id)
	if err == nil && r.failReads.Load() {
		return agentruntime.Agent{}, agentruntime.Errorf(agentruntime.KindBackend, "get", id, nil, "the engine stopped answering")
	}
	return a, err
}

// TestAgentCreate_unreadableAgentIsSaved provisions an agent that cannot be
// read back: it must still reach state, tainted, so that the next apply
// replaces it and destroy removes it, instead of leaking it.
func TestAgentCreate_unreadableAgentIsSaved(t *testing.T) {
	rt := &unreadableRuntime{Runtime: memory.New()}
	rt.failReads.Store(true)
	// Not waiting for health: a wait would read the agent too, fail, and
	// remove the new agent, leaving nothing to save.
	config := memCfg(echoConfig("Unreadable Agent", "one"), "  wait_for_healthy = false")
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: runtimeFactories(t, rt),
		CheckDestroy: func(*terraform.State) error {
			agents, err := rt.List(context.Background())
			if err != nil {
				return err
			}
			if len(agents) > 0 {
				return fmt.Errorf("destroy left agent %q in the runtime", agents[0].ID)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)Cannot read agent unreadable-agent after provisioning it.*engine stopped answering`),
			},
			{
				PreConfig: func() { rt.failReads.Store(false) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionReplace),
				}},
				Check: resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
			},
		},
	})
}
