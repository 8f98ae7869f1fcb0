package provider

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
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

// addressRuntime is the in-memory adapter advertising every agent under
// a base URL it is set to, as the kubernetes adapter does from its
// advertised_url template: provisioning records the address of the moment.
type addressRuntime struct {
	*memory.Runtime
	mu       sync.Mutex
	base     string
	recorded map[string]string
}

func (r *addressRuntime) setBase(base string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.base = base
}

func (r *addressRuntime) PlannedAddress(cfg *agentconfig.Config) (agentruntime.Address, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	endpoint := r.base + "/" + cfg.ID()
	return agentruntime.Address{Endpoint: endpoint, CardURL: card.CardURL(endpoint)}, true
}

func (r *addressRuntime) Provision(ctx context.Context, spec agentruntime.Spec) (agentruntime.Agent, error) {
	a, err := r.Runtime.Provision(ctx, spec)
	if err != nil {
		return a, err
	}
	r.mu.Lock()
	r.recorded[a.ID] = r.base + "/" + a.ID
	r.mu.Unlock()
	return r.Get(ctx, a.ID)
}

func (r *addressRuntime) Get(ctx context.Context, id string) (agentruntime.Agent, error) {
	a, err := r.Runtime.Get(ctx, id)
	r.mu.Lock()
	defer r.mu.Unlock()
	if endpoint, ok := r.recorded[id]; ok && err == nil {
		a.Endpoint, a.CardURL = endpoint, card.CardURL(endpoint)
	}
	return a, err
}

// TestAgentAddressFollowsSetting: a provider setting that gives an
// unchanged agent another address (a new advertised_url template) shows
// in the plan, already known, and apply restarts the agent there; the
// plan after it is empty.
func TestAgentAddressFollowsSetting(t *testing.T) {
	rt := &addressRuntime{Runtime: memory.New(), base: "https://one.example.com", recorded: map[string]string{}}
	newInstance := statecheck.CompareValue(compare.ValuesDiffer())
	config := memCfg("[agent]\nname = \"Address Setting\"")
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: runtimeFactories(t, rt),
		Steps: []resource.TestStep{
			{
				Config:            config,
				Check:             resource.TestCheckResourceAttr(agentAddr, "endpoint", "https://one.example.com/address-setting"),
				ConfigStateChecks: []statecheck.StateCheck{newInstance.AddStateValue(agentAddr, at("instance"))},
			},
			{
				PreConfig: func() { rt.setBase("https://two.example.com") },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("endpoint"), knownvalue.StringExact("https://two.example.com/address-setting")),
					plancheck.ExpectKnownValue(agentAddr, at("card_url"),
						knownvalue.StringExact("https://two.example.com/address-setting/.well-known/agent-card.json")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{newInstance.AddStateValue(agentAddr, at("instance"))},
			},
		},
	})
}
