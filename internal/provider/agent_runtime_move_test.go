package provider

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestAccAgent_stateDirSwitch points the provider block at another state
// dir: the plan must replace the agent, and apply must stop it in the
// state dir that started it (nothing of it left there, its process gone)
// and start it in the new one.
func TestAccAgent_stateDirSwitch(t *testing.T) {
	acc := newAccTest(t)
	oldDir, newDir := acc.stateDir, t.TempDir()
	toml := echoConfig("Mover Agent", "moves between state dirs")
	first := acc.agent(toml)
	acc.stateDir = newDir
	second := acc.agent(toml)
	var oldPID int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			for _, dir := range []string{oldDir, newDir} {
				left, err := statedirtest.Leftovers(dir)
				if err != nil {
					return err
				}
				if len(left) > 0 {
					return fmt.Errorf("state dir %s keeps %v", dir, left)
				}
			}
			return acc.checkNothingLeft(s)
		},
		Steps: []resource.TestStep{
			{
				Config: first,
				Check: resource.ComposeTestCheckFunc(acc.recordPID(),
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
						oldPID, _ = strconv.Atoi(v)
						return nil
					})),
			},
			{
				Config: second,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeTestCheckFunc(acc.recordPID(), func(*terraform.State) error {
					if !waitGone(oldPID) {
						return fmt.Errorf("the agent started in %s (pid %d) still runs", oldDir, oldPID)
					}
					rt, err := local.New(localOptions(t, statedirtest.Open(t, oldDir)))
					if err != nil {
						return err
					}
					agents, err := rt.List(t.Context())
					if err != nil {
						return err
					}
					if len(agents) > 0 {
						return fmt.Errorf("the old state dir still holds %v", agents)
					}
					return nil
				}),
			},
			{
				// Pointing back replaces it again, rather than adopting
				// anything left behind.
				Config: first,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: acc.recordPID(),
			},
			{
				Config:   first,
				PlanOnly: true,
			},
		},
	})
}

// TestAccAgent_adapterSwitch points the provider block from the local
// adapter to the container adapter and back: each switch must plan a
// replacement, and apply must stop the agent where it ran, so that it never
// runs in both places nor stays behind in the one left. The port the agent
// was first given is free once it is stopped, so it moves with the agent.
func TestAccAgent_adapterSwitch(t *testing.T) {
	c := newContainerAccTest(t)
	name, id := c.agentName("Switch Agent")
	toml := echoConfig(name, "switches adapters")
	containerCfg := c.agent(toml)
	c.adapterBlock = ""
	localCfg := c.agent(toml)
	var localPID int
	samePort := statecheck.CompareValue(compare.ValuesSame())
	keepsPort := func() []statecheck.StateCheck {
		return []statecheck.StateCheck{samePort.AddStateValue(agentAddr, tfjsonpath.New("port"))}
	}
	replaced := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionDestroyBeforeCreate),
	}}
	noContainer := func(*terraform.State) error {
		left, err := agentContainers(id)
		if err != nil {
			return err
		}
		if len(left) > 0 {
			return fmt.Errorf("containers of the agent left on the engine: %v", left)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeTestCheckFunc(noContainer, func(*terraform.State) error {
			agents, err := c.listAgents()
			if err != nil {
				return err
			}
			if len(agents) > 0 {
				return fmt.Errorf("local agents left: %v", agents)
			}
			for _, pid := range c.seenPIDs() {
				if !waitGone(pid) {
					return fmt.Errorf("agent process %d still runs after destroy", pid)
				}
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: localCfg,
				Check: resource.ComposeTestCheckFunc(c.recordPID(), resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
					localPID, _ = strconv.Atoi(v)
					return nil
				})),
				ConfigStateChecks: keepsPort(),
			},
			{
				Config:           containerCfg,
				ConfigPlanChecks: replaced,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					func(*terraform.State) error {
						if !waitGone(localPID) {
							return fmt.Errorf("the local agent (pid %d) still runs beside its container", localPID)
						}
						return nil
					}),
				ConfigStateChecks: keepsPort(),
			},
			{
				Config:            localCfg,
				ConfigPlanChecks:  replaced,
				Check:             resource.ComposeTestCheckFunc(c.recordPID(), noContainer),
				ConfigStateChecks: keepsPort(),
			},
			{Config: localCfg, PlanOnly: true},
		},
	})
}
