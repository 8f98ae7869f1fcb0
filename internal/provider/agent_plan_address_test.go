package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// TestAccAgent_plannedAddress: an agent whose config fixes http_port plans
// its endpoint, card URL and port, and a new allowlist plans its id, rather
// than leaving them "known after apply".
func TestAccAgent_plannedAddress(t *testing.T) {
	acc := newAccTest(t)
	port := a2acli.FreePort(t)
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	config := acc.agent(fmt.Sprintf("[agent]\nname = \"Acc Planned\"\n[server]\nhttp_port = %d\n", port),
		"  env_allowlist = a2a_env_allowlist.planned.name") + `
resource "a2a_env_allowlist" "planned" {
  name      = "acc-planned"
  variables = ["ACC_PLANNED_VAR"]
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(agentAddr, at("endpoint"), knownvalue.StringExact(endpoint)),
				plancheck.ExpectKnownValue(agentAddr, at("card_url"), knownvalue.StringExact(endpoint+"/.well-known/agent-card.json")),
				plancheck.ExpectKnownValue(agentAddr, at("port"), knownvalue.Int64Exact(int64(port))),
				plancheck.ExpectKnownValue("a2a_env_allowlist.planned", at("id"), knownvalue.StringExact("acc-planned")),
			}},
			Check: acc.recordPID(),
		}},
	})
}
