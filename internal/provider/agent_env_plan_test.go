package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// TestAgentPlan_allowlistShrinks takes a variable out of an allowlist while
// an agent's unchanged config still references it. The agent's next plan
// provisions it again; that apply fails while the allowlist still refuses
// the variable, and succeeds once the same apply gives it back, so the
// agent is never stuck behind its own plan.
func TestAgentPlan_allowlistShrinks(t *testing.T) {
	t.Setenv("A2A_SHRINK_A", "a")
	allowlist := func(variables string) string {
		return `resource "a2a_env_allowlist" "list" {
  name      = "shrinking"
  variables = [` + variables + `]
}
`
	}
	agent := func(description string, extra ...string) string {
		return memCfg(echoConfig("Shrink Agent", description), append([]string{`  env_allowlist = a2a_env_allowlist.list.name`}, extra...)...)
	}
	both := allowlist(`"A2A_SHRINK_A", "A2A_SHRINK_B"`)
	onlyB := allowlist(`"A2A_SHRINK_B"`)
	provisionsAgain := []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
		plancheck.ExpectUnknownValue(agentAddr, at("injected_env")),
		plancheck.ExpectUnknownValue(agentAddr, at("instance")),
	}
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: memoryFactories(t),
		Steps: []resource.TestStep{
			{
				Config: agent("$${A2A_SHRINK_A}") + both,
				Check:  resource.TestCheckResourceAttr(agentAddr, "injected_env.0", "A2A_SHRINK_A"),
			},
			{
				// The allowlist changes; the agent, planned against the
				// allowlist stored before, is left alone, so the next plan
				// has the agent to provision again.
				Config:             agent("$${A2A_SHRINK_A}") + onlyB,
				ExpectNonEmptyPlan: true,
			},
			{
				// Its apply re-checks the stored allowlist and fails,
				// naming the variable and where the config references it.
				Config:           agent("$${A2A_SHRINK_A}") + onlyB,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: provisionsAgain},
				ExpectError:      regexp.MustCompile(`disallowed\s+variables\s+A2A_SHRINK_A\s+\(agent\s+config\s+line\s+3,\s+column\s+\d+(;\s+did\s+you\s+mean\s+A2A_SHRINK_B\?)?\):\s+env\s+allowlist\s+"shrinking"\s+does\s+not\s+allow`),
			},
			{
				// Giving the variable back plans, and the same apply
				// updates the allowlist before it provisions the agent.
				Config:           agent("$${A2A_SHRINK_A}") + both,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: provisionsAgain},
				Check:            resource.TestCheckResourceAttr(agentAddr, "injected_env.0", "A2A_SHRINK_A"),
			},
			{
				// Stopping the agent needs no variable, so it is allowed.
				Config: agent("$${A2A_SHRINK_A}", "  running = false") + onlyB,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("stopped")),
				}},
			},
			{
				// Dropping the reference provisions the agent again,
				// without the variable.
				Config: agent("$${A2A_SHRINK_B:-nobody}") + onlyB,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("injected_env"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("A2A_SHRINK_B")})),
					plancheck.ExpectUnknownValue(agentAddr, at("instance")),
				}},
				Check: resource.TestCheckResourceAttr(agentAddr, "injected_env.0", "A2A_SHRINK_B"),
			},
		},
	})
}

// TestPlanAgent_allowlistUnderUnchangedConfig plans an agent whose config
// is unchanged against an allowlist that may have changed since it was
// provisioned.
func TestPlanAgent_allowlistUnderUnchangedConfig(t *testing.T) {
	const raw = "[agent]\nname = \"Env Agent\"\ndescription = \"${A2A_X} ${A2A_Y:-none}\"\n"
	model := func(running bool, injected []string) *agentModel {
		return &agentModel{
			ID: types.StringValue("env-agent"), Name: types.StringValue("Env Agent"),
			Config: types.StringValue(raw), ConfigSHA256: types.StringValue("digest of the config"), EnvAllowlist: types.StringValue("team"),
			Running: types.BoolValue(running), WaitForHealthy: types.BoolValue(true),
			Endpoint: types.StringValue("http://127.0.0.1:40000"), CardURL: types.StringValue("http://127.0.0.1:40000/.well-known/agent-card.json"),
			Port: types.Int64Value(40000), Health: types.StringValue("healthy"), Instance: types.StringValue("memory-1"),
			InjectedEnv: stringList(injected),
		}
	}
	tests := []struct {
		name           string
		allowed        []string
		priorInjected  []string
		running        bool
		wantWarning    string // set: injected_env is left unknown for apply to settle
		wantInjected   []string
		wantProvision  bool
		wantInstanceIs string // "" expects unknown
	}{
		{"same allowlist plans nothing", []string{"A2A_X", "A2A_Y"}, []string{"A2A_X", "A2A_Y"}, true, "", []string{"A2A_X", "A2A_Y"}, false, "memory-1"},
		{"a variable newly allowed provisions again", []string{"A2A_X", "A2A_Y"}, []string{"A2A_X"}, true, "", []string{"A2A_X", "A2A_Y"}, true, ""},
		{"a variable taken away warns and provisions again", []string{"A2A_Y"}, []string{"A2A_X", "A2A_Y"}, true,
			`references A2A_X, which env allowlist "team", as stored now, no longer allows`, nil, true, ""},
		{"stopping needs no variable", []string{"A2A_Y"}, []string{"A2A_X", "A2A_Y"}, false, "", []string{"A2A_X", "A2A_Y"}, false, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prior, plan := model(true, tt.priorInjected), model(tt.running, tt.priorInjected)
			env := plannedAllowlist{known: true, allowlist: &agentruntime.EnvAllowlist{Name: "team", Variables: tt.allowed}}
			replace, diags := planAgent(context.Background(), memory.New(), prior, plan, env, writeOnly{known: true})
			if replace {
				t.Fatal("planAgent asks to replace an agent whose name is unchanged")
			}
			if diags.HasError() {
				t.Fatalf("unexpected errors: %v", diags)
			}
			if tt.wantWarning != "" {
				if len(diags) != 1 || diags[0].Severity() != diag.SeverityWarning || !strings.Contains(diags[0].Detail(), tt.wantWarning) {
					t.Fatalf("diagnostics %v, want one warning containing %q", diags, tt.wantWarning)
				}
				if !plan.InjectedEnv.IsUnknown() {
					t.Errorf("injected_env = %v, want unknown until apply re-checks the allowlist", plan.InjectedEnv)
				}
			} else if want := stringList(tt.wantInjected); !plan.InjectedEnv.Equal(want) {
				t.Errorf("injected_env = %v, want %v", plan.InjectedEnv, want)
			}
			if got := changeOf(prior, plan, false).provision; got != tt.wantProvision {
				t.Errorf("provision = %v, want %v", got, tt.wantProvision)
			}
			switch tt.wantInstanceIs {
			case "":
				if !plan.Instance.IsUnknown() {
					t.Errorf("instance = %v, want unknown: the agent restarts", plan.Instance)
				}
			case "null":
				if !plan.Instance.IsNull() {
					t.Errorf("instance = %v, want null: the agent stops", plan.Instance)
				}
			default:
				if plan.Instance.ValueString() != tt.wantInstanceIs {
					t.Errorf("instance = %v, want %q", plan.Instance, tt.wantInstanceIs)
				}
			}
		})
	}
}
