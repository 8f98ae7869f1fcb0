package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// TestAgentIDFunction runs the function as Terraform calls it: the id of a
// name, or an error about the name's one argument.
func TestAgentIDFunction(t *testing.T) {
	tests := []struct{ name, want, wantErr string }{
		{name: "Echo Agent", want: "echo-agent"},
		{name: "Café Agent (EU)", want: "cafe-agent-eu"},
		{name: "", wantErr: "agent.name is required"},
		{name: "${NAME}", wantErr: "agent.name must be literal"},
		{name: "日本", wantErr: `has no letters or digits that can spell an agent id`},
		{name: strings.Repeat("x", 64), wantErr: "more than the 63 an id may have"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := function.RunResponse{Result: function.NewResultData(types.StringUnknown())}
			newAgentIDFunction().Run(context.Background(), function.RunRequest{
				Arguments: function.NewArgumentsData([]attr.Value{types.StringValue(tt.name)}),
			}, &resp)
			if tt.wantErr != "" {
				if resp.Error == nil || !strings.Contains(resp.Error.Text, tt.wantErr) || resp.Error.FunctionArgument == nil || *resp.Error.FunctionArgument != 0 {
					t.Fatalf("error %v, want one about argument 0 containing %q", resp.Error, tt.wantErr)
				}
				return
			}
			if resp.Error != nil {
				t.Fatalf("error %v, want %q", resp.Error, tt.want)
			}
			if got := resp.Result.Value(); !got.Equal(types.StringValue(tt.want)) {
				t.Fatalf("result %v, want %q", got, tt.want)
			}
		})
	}
}

// TestAccAgentIDFunction: the function gives, at plan, the id the agent of
// that name gets; a name that gives no id fails the plan naming why; and an
// import block names an agent by it, adopting the agent with nothing to
// change.
func TestAccAgentIDFunction(t *testing.T) {
	acc := newAccTest(t)
	const name = "Café Agent (EU)"
	toml := echoConfig(name, "named by the function")
	derived := fmt.Sprintf("output \"derived\" {\n  value = provider::a2a::agent_id(%q)\n}\n", name)
	adopted := fmt.Sprintf("resource \"a2a_agent\" \"adopted\" {\n  config = <<-EOT\n%s\n  EOT\n}\n", indent(toml))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.RequireAbove(tfversion.Version1_8_0)},
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: acc.agent(toml) + derived,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownOutputValue("derived", knownvalue.StringExact("cafe-agent-eu")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(agentAddr, at("id"), knownvalue.StringExact("cafe-agent-eu")),
				},
				Check: acc.recordPID(),
			},
			{
				Config:      acc.agent(toml) + "output \"none\" {\n  value = provider::a2a::agent_id(\"日本\")\n}\n",
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)agent.name\s+"日本"\s+has\s+no\s+letters\s+or\s+digits`),
			},
			{
				// Terraform forgets the agent, which runs on.
				Config: acc.provider() + "removed {\n  from = a2a_agent.test\n  lifecycle {\n    destroy = false\n  }\n}\n",
			},
			{
				Config: acc.provider() + adopted +
					fmt.Sprintf("import {\n  to = a2a_agent.adopted\n  id = provider::a2a::agent_id(%q)\n}\n", name),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("a2a_agent.adopted", plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("a2a_agent.adopted", at("health"), knownvalue.StringExact("healthy")),
				},
			},
		},
	})
}
