package provider

import (
	"context"
	"fmt"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// rivalRuntime is the in-memory adapter where, at the first provision, a
// rival (another run on the same runtime) creates the same agent an
// instant before: after any look-up, before the creation.
type rivalRuntime struct {
	*memory.Runtime
	rival    []byte
	rivalled atomic.Bool
}

func (r *rivalRuntime) Provision(ctx context.Context, spec agentruntime.Spec) (agentruntime.Agent, error) {
	if r.rivalled.CompareAndSwap(false, true) {
		if _, err := r.Runtime.Provision(ctx, agentruntime.Spec{Config: r.rival}); err != nil {
			return agentruntime.Agent{}, fmt.Errorf("the rival's provision: %w", err)
		}
	}
	return r.Runtime.Provision(ctx, spec)
}

// TestAgentCreate_rivalCreatesFirst creates an agent that a rival creates
// first: the create must fail saying the agent exists, and leave the
// rival's agent as the rival made it, neither adopted nor destroyed.
func TestAgentCreate_rivalCreatesFirst(t *testing.T) {
	const name = "Contested Agent"
	rival := []byte(echoConfig(name, "the rival's"))
	rt := &rivalRuntime{Runtime: memory.New(), rival: rival}
	id := agentconfig.Slug(name)
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: runtimeFactories(t, rt),
		CheckDestroy: func(*terraform.State) error {
			agents, err := rt.List(context.Background())
			if err != nil {
				return err
			}
			if len(agents) != 1 || agents[0].ID != id || string(agents[0].Config) != string(rival) {
				return fmt.Errorf("the runtime holds %+v, want only the rival's agent %s as the rival made it", agents, id)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config:      memCfg(echoConfig(name, "ours")),
			ExpectError: regexp.MustCompile(`(?s)Agent already exists.*` + id + `.*terraform import\s+a2a_agent.<resource\s+name>\s+` + id),
		}},
	})
}

// TestAccAgent_sameIDTwice declares one agent twice, created at once: the
// plan cannot tell (nothing holds the id yet), so exactly one may create
// it, the other must fail saying it exists, and the agent must be tracked
// once, by its creator, so that destroy removes it and nothing else. The
// names are the same: two names that spell one id are refused already at
// plan (TestAccAgent_twinNames).
func TestAccAgent_sameIDTwice(t *testing.T) {
	acc := newAccTest(t)
	const id = "dup-agent"
	config := acc.provider()
	for _, resourceName := range []string{"one", "two"} {
		config += fmt.Sprintf("resource \"a2a_agent\" %q {\n  config = <<-EOT\n%s\n  EOT\n}\n", resourceName, indent(echoConfig("Dup Agent", "twin")))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)Agent already exists.*` + id),
			},
			{
				// The loser is still to be created, so the plan is not empty.
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					acc.checkOnlyAgents(id),
					acc.checkTrackedOnce(id),
				),
			},
		},
	})
}

// checkTrackedOnce verifies that exactly one agent resource in state holds
// agent id, as the runtime reports it now, and remembers its process.
func (a *accTest) checkTrackedOnce(id string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		var owners []*terraform.ResourceState
		for _, rs := range s.RootModule().Resources {
			if rs.Type == "a2a_agent" {
				owners = append(owners, rs)
			}
		}
		if len(owners) != 1 || owners[0].Primary.ID != id {
			return fmt.Errorf("state holds %d agent resources, want exactly one holding %s", len(owners), id)
		}
		agents, err := a.listAgents()
		if err != nil {
			return err
		}
		got := owners[0].Primary.Attributes
		if len(agents) != 1 || !agents[0].Running || got["instance"] != agents[0].Instance || got["port"] != fmt.Sprint(agents[0].Port) {
			return fmt.Errorf("state says instance %s port %s, the runtime %+v", got["instance"], got["port"], agents)
		}
		var pid int
		if _, err := fmt.Sscan(agents[0].Instance, &pid); err != nil {
			return err
		}
		a.rememberPID(pid)
		return nil
	}
}
