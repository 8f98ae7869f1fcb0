package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
)

// listedAgents declares the agents of the list tests: two whose ids share a
// prefix, one of them provisioned but not running, and a third.
func (a *accTest) listedAgents() string {
	config := a.provider()
	for _, agent := range []struct{ resource, name, extra string }{
		{"one", "List Billing One", ""},
		{"two", "List Billing Two", "  running = false\n"},
		{"support", "List Support", ""},
	} {
		config += fmt.Sprintf("resource \"a2a_agent\" %q {\n  config = <<-EOT\n%s\n  EOT\n%s}\n", agent.resource,
			indent(echoConfig(agent.name, "listed")), agent.extra)
	}
	return config
}

// idIs is the identity of an agent or allowlist of id.
func idIs(id string) map[string]knownvalue.Check {
	return map[string]knownvalue.Check{"id": knownvalue.StringExact(id)}
}

// TestAccAgentList_query: terraform query lists the agents of the runtime
// by their identity and name, each filter picks the agents it says, and
// include_resource gives each as an import of it would read it.
func TestAccAgentList_query(t *testing.T) {
	newerTerraform(t)
	acc := newAccTest(t)
	list := func(name, config string) string {
		return fmt.Sprintf("list \"a2a_agent\" %q {\n  provider = a2a\n%s}\n", name, config)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   identityTerraform,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{Config: acc.listedAgents()},
			{
				Query: true,
				Config: list("all", "") +
					list("billing", "  config {\n    id_prefix = \"list-billing\"\n  }\n") +
					list("idle", "  config {\n    health = [\"provisioned\", \"stopped\"]\n  }\n") +
					list("named", "  config {\n    name_prefix = \"List Sup\"\n  }\n") +
					list("none", "  config {\n    id_prefix = \"list-billing\"\n    name_prefix = \"List Support\"\n  }\n") +
					list("full", "  include_resource = true\n  config {\n    id_prefix = \"list-support\"\n  }\n"),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("a2a_agent.all", 3),
					querycheck.ExpectIdentity("a2a_agent.all", idIs("list-billing-one")),
					querycheck.ExpectIdentity("a2a_agent.all", idIs("list-billing-two")),
					querycheck.ExpectIdentity("a2a_agent.all", idIs("list-support")),
					querycheck.ExpectResourceDisplayName("a2a_agent.all", queryfilter.ByResourceIdentity(idIs("list-support")),
						knownvalue.StringExact("List Support (list-support)")),
					querycheck.ExpectLength("a2a_agent.billing", 2),
					querycheck.ExpectLength("a2a_agent.idle", 1),
					querycheck.ExpectIdentity("a2a_agent.idle", idIs("list-billing-two")),
					querycheck.ExpectLength("a2a_agent.named", 1),
					querycheck.ExpectIdentity("a2a_agent.named", idIs("list-support")),
					querycheck.ExpectLength("a2a_agent.none", 0),
					querycheck.ExpectLength("a2a_agent.full", 1),
					querycheck.ExpectResourceKnownValues("a2a_agent.full", queryfilter.ByResourceIdentity(idIs("list-support")),
						[]querycheck.KnownValueCheck{
							{Path: at("config"), KnownValue: knownvalue.StringExact(echoConfig("List Support", "listed"))},
							{Path: at("health"), KnownValue: knownvalue.StringExact("healthy")},
							{Path: at("running"), KnownValue: knownvalue.Bool(true)},
							{Path: at("wait_for_healthy"), KnownValue: knownvalue.Bool(true)},
						}),
				},
			},
			{
				Query:       true,
				Config:      list("bad", "  config {\n    health = [\"sick\"]\n  }\n"),
				ExpectError: regexp.MustCompile(`(?s)value must be one of:.*"healthy"`),
			},
			{Config: acc.listedAgents()},
		},
	})
}
