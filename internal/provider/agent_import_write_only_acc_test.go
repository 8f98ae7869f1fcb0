//go:build linux

package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// TestAccAgent_importWithWriteOnlyValues: an agent given write-only values
// at env_wo_version 3, removed from state and imported, reads its version
// back from the runtime, so the configuration that made it plans no
// change: no restart, no update. On the local and the container adapter.
func TestAccAgent_importWithWriteOnlyValues(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		acc := newAccTest(t)
		importWithWriteOnlyValues(t, acc, "Acc Import Wo", acc.checkNothingLeft)
	})
	t.Run("container", func(t *testing.T) {
		c := newContainerAccTest(t)
		name, _ := c.agentName("Acc Ctr Import Wo")
		importWithWriteOnlyValues(t, c.accTest, name, c.checkNoContainers)
	})
}

func importWithWriteOnlyValues(t *testing.T, acc *accTest, name string, destroyed resource.TestCheckFunc) {
	setWriteOnlyValues(t, "wo-import-greeting-2c7e", "wo-import-token-8b31")
	config := acc.writeOnlyAgent(name, woDescription, 3)
	id := agentconfig.Slug(name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             destroyed,
		Steps: []resource.TestStep{
			{Config: config, Check: resource.TestCheckResourceAttr(agentAddr, "env_wo_version", "3")},
			{
				Config: config, ResourceName: agentAddr, ImportState: true, ImportStateKind: resource.ImportBlockWithID, ImportStateId: id,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionNoop)}},
			},
			{Config: config, ResourceName: agentAddr, ImportState: true, ImportStateId: id, ImportStateVerify: true},
		},
	})
}
