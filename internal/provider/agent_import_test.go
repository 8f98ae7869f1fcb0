package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccAgent_importWrongID: an id that is not an agent id, or that names
// no agent of the runtime, fails the import saying what an id looks like
// and which agents there are.
func TestAccAgent_importWrongID(t *testing.T) {
	acc := newAccTest(t)
	config := acc.agent("[agent]\nname = \"Acc Import Wrong\"\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{Config: config, Check: acc.recordPID()},
			{
				ResourceName: agentAddr, ImportState: true, ImportStateId: "Acc Import Wrong",
				ExpectError: regexp.MustCompile(`(?s)is\s+not\s+an\s+agent\s+id.*\[agent\]\s+id.*slug\s+of\s+its.*Try\s+"acc-import-wrong"`),
			},
			{
				ResourceName: agentAddr, ImportState: true, ImportStateId: "acc-import-elsewhere",
				ExpectError: regexp.MustCompile(`(?s)has\s+no\s+agent\s+"acc-import-elsewhere".*Only\s+agents\s+this.*recorded.*Its\s+agents:\s+acc-import-wrong`),
			},
		},
	})
}
