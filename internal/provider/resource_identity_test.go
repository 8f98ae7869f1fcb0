package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// identityIs checks the identity of the resource at address.
func identityIs(address, id string) statecheck.StateCheck {
	return statecheck.ExpectIdentity(address, idIs(id))
}

// TestAccIdentity_import: an agent and its allowlist carry their ids as
// their identity, and an import block that gives only that identity
// adopts each with nothing to change. Then the agent, forgotten by
// Terraform, is adopted by an apply of an import block naming its
// identity, and the plan after it is empty.
func TestAccIdentity_import(t *testing.T) {
	newerTerraform(t)
	acc := newAccTest(t)
	toml := echoConfig("Acc Identity", "known by its id")
	// Referred to as the docs recommend, which is how an import reads it back.
	const refer = "  env_allowlist = a2a_env_allowlist.test.reference"
	allowlist := allowlistResource("acc-identity-allow", "ACC_IDENTITY_UNUSED")
	config := acc.agent(toml, refer) + allowlist
	adopted := acc.provider() + allowlist +
		fmt.Sprintf("resource \"a2a_agent\" \"adopted\" {\n  config = <<-EOT\n%s\n  EOT\n%s\n}\n", indent(toml), refer)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   identityTerraform,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []tfresource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					identityIs(agentAddr, "acc-identity"),
					identityIs(allowlistAddr, "acc-identity-allow"),
				},
				Check: acc.recordPID(),
			},
			{ResourceName: agentAddr, ImportState: true, ImportStateKind: tfresource.ImportBlockWithResourceIdentity},
			{ResourceName: allowlistAddr, ImportState: true, ImportStateKind: tfresource.ImportBlockWithResourceIdentity},
			{
				Config: acc.provider() + allowlist + "removed {\n  from = a2a_agent.test\n  lifecycle {\n    destroy = false\n  }\n}\n",
			},
			{
				Config: adopted + "import {\n  to       = a2a_agent.adopted\n  identity = { id = \"acc-identity\" }\n}\n",
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("a2a_agent.adopted", plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					identityIs("a2a_agent.adopted", "acc-identity"),
					statecheck.ExpectKnownValue("a2a_agent.adopted", at("health"), knownvalue.StringExact("healthy")),
				},
			},
		},
	})
}

// noIdentity proves the premise of an upgrade: the resource at address has
// no identity in state.
type noIdentity string

func (address noIdentity) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address == string(address) && len(r.IdentityValues) > 0 {
			resp.Error = fmt.Errorf("%s has the identity %v already", address, r.IdentityValues)
		}
	}
}

// providerBeforeIdentity is the provider as it was released before
// resource identity: the same resources, known by no identity.
type providerBeforeIdentity struct{ *a2aProvider }

func (providerBeforeIdentity) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &agentResource{} },
		func() resource.Resource { return &envAllowlistResource{} },
	}
}

// TestAccIdentity_upgrade: state that a provider without identity wrote
// gains the identity at the next refresh, with a plan that changes nothing.
func TestAccIdentity_upgrade(t *testing.T) {
	newerTerraform(t)
	acc := newAccTest(t)
	before := map[string]func() (tfprotov6.ProviderServer, error){
		"a2a": providerserver.NewProtocol6WithError(providerBeforeIdentity{New(hostbuild.Release)().(*a2aProvider)}),
	}
	config := acc.agentAllowing(echoConfig("Acc Identity Upgrade", "state from before identity"), "acc-upgrade-allow", "ACC_UPGRADE_UNUSED")
	tfresource.Test(t, tfresource.TestCase{
		TerraformVersionChecks: identityTerraform,
		CheckDestroy:           acc.checkNothingLeft,
		Steps: []tfresource.TestStep{
			{
				ProtoV6ProviderFactories: before,
				Config:                   config,
				ConfigStateChecks:        []statecheck.StateCheck{noIdentity(agentAddr), noIdentity(allowlistAddr)},
				Check:                    acc.recordPID(),
			},
			{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Config:                   config,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					identityIs(agentAddr, "acc-identity-upgrade"),
					identityIs(allowlistAddr, "acc-upgrade-allow"),
				},
			},
		},
	})
}
