package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// TestAccAgent_idFromAccentedName runs an agent whose name has accents,
// then declares a second agent whose name spells the same id. The id is
// the name with its accents folded; the second agent is refused at apply,
// naming the id and the import way out, and the first one runs on
// untouched. With an id of its own, the second agent runs beside it.
func TestAccAgent_idFromAccentedName(t *testing.T) {
	acc := newAccTest(t)
	first := acc.agent(echoConfig("Café Agent", "first"))
	second := func(toml string) string {
		return first + fmt.Sprintf("resource \"a2a_agent\" \"second\" {\n  config = <<-EOT\n%s\n  EOT\n}\n", indent(toml))
	}
	var pid string
	sameInstance := resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
		if v != pid {
			return fmt.Errorf("agent instance is %s, was %s: the first agent was restarted or replaced", v, pid)
		}
		return nil
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: first,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(agentAddr, at("id"), knownvalue.StringExact("cafe-agent")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "id", "cafe-agent"),
					resource.TestCheckResourceAttr(agentAddr, "name", "Café Agent"),
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					acc.checkOnlyAgents("cafe-agent"),
					acc.recordPID(),
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error { pid = v; return nil }),
				),
			},
			{
				// Refused by Create, before it makes anything; the plan only
				// warns, since Terraform plans just so before a destroy.
				Config:      second(echoConfig("Cafe Agent", "second")),
				ExpectError: regexp.MustCompile(`(?s)Agent already exists.*"cafe-agent".*terraform\s+import\s+a2a_agent.<resource\s+name>\s+cafe-agent`),
			},
			{
				// The same with an [agent] id that another agent has.
				Config:      second("[agent]\nname = \"Other Agent\"\nid = \"cafe-agent\"\n"),
				ExpectError: regexp.MustCompile(`Agent already exists`),
			},
			{
				// The first agent still runs, as the same process.
				Config: first,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					sameInstance,
					acc.checkOnlyAgents("cafe-agent"),
				),
			},
			{
				Config: second(echoConfig("Cafe Agent", "second") + "id = \"cafe-agent-2\"\n"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("a2a_agent.second", "id", "cafe-agent-2"),
					resource.TestCheckResourceAttr("a2a_agent.second", "health", "healthy"),
					sameInstance,
					acc.checkOnlyAgents("cafe-agent", "cafe-agent-2"),
				),
			},
		},
	})
}
