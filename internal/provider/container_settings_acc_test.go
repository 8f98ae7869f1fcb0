package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccContainerAgent_providerSettings: a change of the container block's
// restart policy and hardening plans an update of the agent naming both
// settings, and apply recreates its container with them; an unchanged
// block then plans nothing, and the agent imports with an empty plan.
func TestAccContainerAgent_providerSettings(t *testing.T) {
	c := newContainerAccTest(t)
	name, id := c.agentName("Acc Ctr Settings")
	block := func(settings string) string {
		return "  container {\n    stop_grace_period = \"3s\"\n" + settings + "  }\n"
	}
	config := func(settings string) string {
		c.adapterBlock = block(settings)
		return c.agent(echoConfig(name, "settings"))
	}
	newInstance := statecheck.CompareValue(compare.ValuesDiffer())
	container := func(policy string, memory int64) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := inspectContainer(id)
			if err != nil {
				return err
			}
			if got.HostConfig.RestartPolicy.Name != policy || got.HostConfig.Memory != memory<<20 {
				return fmt.Errorf("container of %s has restart policy %q and memory %d, want %q and %d MiB",
					id, got.HostConfig.RestartPolicy.Name, got.HostConfig.Memory, policy, memory)
			}
			return nil
		}
	}
	healthy := resource.TestCheckResourceAttr(agentAddr, "health", "healthy")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps: append([]resource.TestStep{
			{
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(agentAddr, setting("container.restart_policy"), knownvalue.StringExact("unless-stopped")),
					plancheck.ExpectKnownValue(agentAddr, setting("container.stop_grace_period"), knownvalue.StringExact("3s")),
				}},
				Check:             resource.ComposeAggregateTestCheckFunc(healthy, container("unless-stopped", 0)),
				ConfigStateChecks: []statecheck.StateCheck{newInstance.AddStateValue(agentAddr, at("instance"))},
			},
			{
				Config: config("    restart_policy = \"on-failure\"\n    hardening {\n      memory_mb = 256\n    }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, setting("container.restart_policy"), knownvalue.StringExact("on-failure")),
					plancheck.ExpectKnownValue(agentAddr, setting("container.hardening"), knownvalue.StringRegexp(regexp.MustCompile(` memory_mb=256 `))),
				}},
				Check:             resource.ComposeAggregateTestCheckFunc(healthy, container("on-failure", 256)),
				ConfigStateChecks: []statecheck.StateCheck{newInstance.AddStateValue(agentAddr, at("instance"))},
			},
		}, importSteps(agentAddr, id)...),
	})
}

// setting is the path of a provider setting in an agent's runtime_settings.
func setting(name string) tfjsonpath.Path { return at("runtime_settings").AtMapKey(name) }
