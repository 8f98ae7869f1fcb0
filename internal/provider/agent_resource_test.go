package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

const agentAddr = "a2a_agent.test"

func at(name string) tfjsonpath.Path { return tfjsonpath.New(name) }

func TestAccAgent_lifecycle(t *testing.T) {
	acc := newAccTest(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newDigest := statecheck.CompareValue(compare.ValuesDiffer())
	newInstance := statecheck.CompareValue(compare.ValuesDiffer())
	samePort := statecheck.CompareValue(compare.ValuesSame())

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: acc.agent(echoConfig("Acc Lifecycle", "first")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					// Known at plan time, from the config alone.
					plancheck.ExpectKnownValue(agentAddr, at("id"), knownvalue.StringExact("acc-lifecycle")),
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("healthy")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "name", "Acc Lifecycle"),
					resource.TestCheckResourceAttr(agentAddr, "running", "true"),
					resource.TestCheckResourceAttr(agentAddr, "injected_env.#", "0"),
					resource.TestMatchResourceAttr(agentAddr, "endpoint", regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`)),
					acc.recordPID(),
					checkCard(descriptionIs("first")),
				),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(agentAddr, at("id")),
					newDigest.AddStateValue(agentAddr, at("config_sha256")),
					newInstance.AddStateValue(agentAddr, at("instance")),
					samePort.AddStateValue(agentAddr, at("port")),
				},
			},
			{
				Config: acc.agent(echoConfig("Acc Lifecycle", "second")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					// A description change keeps where the agent is reached.
					plancheck.ExpectKnownValue(agentAddr, at("endpoint"), knownvalue.NotNull()),
					plancheck.ExpectUnknownValue(agentAddr, at("instance")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					acc.recordPID(),
					checkCard(descriptionIs("second")),
				),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(agentAddr, at("id")),
					newDigest.AddStateValue(agentAddr, at("config_sha256")),
					newInstance.AddStateValue(agentAddr, at("instance")),
					samePort.AddStateValue(agentAddr, at("port")),
				},
			},
			{
				Config: acc.agent(echoConfig("Acc Lifecycle", "second"), "  running = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("stopped")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "running", "false"),
					resource.TestCheckResourceAttr(agentAddr, "health", "stopped"),
					resource.TestCheckNoResourceAttr(agentAddr, "instance"),
					acc.checkAllStopped,
				),
			},
			{
				Config: acc.agent(echoConfig("Acc Lifecycle", "second")),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "running", "true"),
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					acc.recordPID(),
					checkCard(descriptionIs("second")),
				),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(agentAddr, at("id")),
					samePort.AddStateValue(agentAddr, at("port")),
				},
			},
			{
				// A new config and a stop in one apply: an agent that has
				// run reads stopped once provisioned again, and the plan
				// says so.
				Config: acc.agent(echoConfig("Acc Lifecycle", "third"), "  running = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("stopped")),
					plancheck.ExpectKnownValue(agentAddr, at("instance"), knownvalue.Null()),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "running", "false"),
					resource.TestCheckNoResourceAttr(agentAddr, "instance"),
					acc.checkAllStopped,
				),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(agentAddr, at("id")),
					newDigest.AddStateValue(agentAddr, at("config_sha256")),
				},
			},
			{
				// A new name is a new agent.
				Config: acc.agent(echoConfig("Acc Lifecycle Renamed", "second")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionReplace),
					plancheck.ExpectKnownValue(agentAddr, at("id"), knownvalue.StringExact("acc-lifecycle-renamed")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					acc.recordPID(),
					acc.checkOnlyAgents("acc-lifecycle-renamed"),
				),
			},
		},
	})
}

// checkAllStopped verifies that every agent process seen so far has exited.
func (a *accTest) checkAllStopped(*terraform.State) error {
	for _, pid := range a.seenPIDs() {
		if !waitGone(pid) {
			return fmt.Errorf("agent process %d still runs", pid)
		}
	}
	return nil
}

// checkOnlyAgents verifies the runtime holds exactly the given agents.
func (a *accTest) checkOnlyAgents(ids ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		agents, err := a.listAgents()
		if err != nil {
			return err
		}
		got := make([]string, len(agents))
		for i, ag := range agents {
			got[i] = ag.ID
		}
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			return fmt.Errorf("runtime holds agents %v, want %v", got, ids)
		}
		return nil
	}
}

// rememberInstancePID reads a local agent's process id from its instance
// into pid, for a later step to kill.
func rememberInstancePID(pid *int) resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
		var err error
		*pid, err = strconv.Atoi(v)
		return err
	})
}

func TestAccAgent_drift(t *testing.T) {
	acc := newAccTest(t)
	config := acc.agent(echoConfig("Acc Drift", "drifting"))
	var pid int
	rememberPID := rememberInstancePID(&pid)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  resource.ComposeAggregateTestCheckFunc(acc.recordPID(), rememberPID),
			},
			{
				// The agent crashes, its supervisor with it: refresh reads
				// it stopped, the plan starts it, and apply heals it.
				PreConfig: func() {
					killSupervisorOf(t, pid)
					if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
						t.Fatalf("kill agent %d: %v", pid, err)
					}
					if !waitGone(pid) {
						t.Fatalf("agent %d survived SIGKILL", pid)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("running"), knownvalue.Bool(true)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					acc.recordPID(), rememberPID,
					checkCard(descriptionIs("drifting")),
				),
			},
			{
				// The agent hangs (suspended, its card no longer answers):
				// refresh reads it unhealthy, the plan restarts it, and
				// apply replaces the hung process with a healthy one.
				PreConfig: func() {
					if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
						t.Fatalf("suspend agent %d: %v", pid, err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("healthy")),
					plancheck.ExpectUnknownValue(agentAddr, at("instance")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
						if v == strconv.Itoa(pid) {
							return fmt.Errorf("instance is still the hung process %d", pid)
						}
						return nil
					}),
					acc.recordPID(), rememberPID,
				),
			},
			{
				// The crash alone, refreshed and planned: the plan is not empty.
				PreConfig: func() {
					killSupervisorOf(t, pid)
					if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
						t.Fatalf("kill agent %d: %v", pid, err)
					}
					waitGone(pid)
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// The record is deleted out of band: the plan recreates it.
				PreConfig: func() {
					rt, err := local.New(localOptions(t, statedirtest.Open(t, acc.stateDir)))
					if err != nil {
						t.Fatal(err)
					}
					if err := rt.Deprovision(context.Background(), "acc-drift"); err != nil {
						t.Fatalf("deprovision out of band: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					acc.recordPID(),
					checkCard(descriptionIs("drifting")),
				),
			},
		},
	})
}

// TestAccAgent_import imports an agent and its allowlist. An agent that
// refers to its allowlist by reference, as the docs recommend, round-trips:
// the state import makes matches the managed one and the import block's
// plan is empty. One that names it by name imports with the reference,
// which its next plan sets back to the name, restarting nothing.
func TestAccAgent_import(t *testing.T) {
	for _, form := range []string{"reference", "name"} {
		t.Run(form, func(t *testing.T) {
			acc := newAccTest(t)
			config := acc.provider() + `
resource "a2a_env_allowlist" "test" {
  name      = "acc-import"
  variables = ["A2A_ACC_IMPORT_TOKEN"]
}

resource "a2a_agent" "test" {
  env_allowlist = a2a_env_allowlist.test.` + form + `
  config        = <<-EOT
    [agent]
    name = "Acc Import"
    description = "imported"
    [auth]
    bearer_token = "$${A2A_ACC_IMPORT_TOKEN}"
  EOT
}
`
			t.Setenv("A2A_ACC_IMPORT_TOKEN", "acc-import-token-value")
			imports := importSteps(agentAddr, "acc-import")
			if form == "name" {
				imports = []resource.TestStep{
					{ResourceName: agentAddr, ImportState: true, ImportStateId: "acc-import", ImportStateVerify: true,
						ImportStateVerifyIgnore: []string{"env_allowlist"},
						ImportStateCheck: func(states []*terraform.InstanceState) error {
							if got := states[0].Attributes["env_allowlist"]; !strings.HasPrefix(got, "acc-import:A2A_ACC_IMPORT_TOKEN@") {
								return fmt.Errorf("imported env_allowlist = %q, want the allowlist's reference", got)
							}
							return nil
						}},
					{ResourceName: agentAddr, ImportState: true, ImportStateKind: resource.ImportBlockWithID, ImportStateId: "acc-import",
						ExpectNonEmptyPlan: true,
						ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
							plancheck.ExpectKnownValue(agentAddr, tfjsonpath.New("env_allowlist"), knownvalue.StringExact("acc-import")),
						}}},
				}
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             acc.checkNothingLeft,
				Steps: slices.Concat([]resource.TestStep{
					{
						Config: config,
						Check: resource.ComposeAggregateTestCheckFunc(
							acc.recordPID(),
							resource.TestCheckResourceAttr(agentAddr, "injected_env.#", "1"),
							resource.TestCheckResourceAttr(agentAddr, "injected_env.0", "A2A_ACC_IMPORT_TOKEN"),
						),
					}},
					imports,
					importSteps("a2a_env_allowlist.test", "acc-import"),
				),
			})
		})
	}
}

// importSteps import addr by id twice: with terraform import, whose state
// must match the managed one, and with an import block, whose plan must be
// empty.
func importSteps(addr, id string) []resource.TestStep {
	return []resource.TestStep{
		{ResourceName: addr, ImportState: true, ImportStateId: id, ImportStateVerify: true},
		{ResourceName: addr, ImportState: true, ImportStateKind: resource.ImportBlockWithID, ImportStateId: id},
	}
}

func TestAccAgent_envAllowlist(t *testing.T) {
	acc := newAccTest(t)
	const greeting = "bonjour-7f3a9c1e5b"
	t.Setenv("A2A_ACC_GREETING", greeting)
	allowlist := `
resource "a2a_env_allowlist" "test" {
  name      = "acc-greetings"
  variables = ["A2A_ACC_GREETING"]
}
`
	agent := func(description string) string {
		return acc.agent(fmt.Sprintf("[agent]\nname = \"Acc Env\"\ndescription = %q\n", description),
			"  env_allowlist = a2a_env_allowlist.test.name") + allowlist
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				// The allowlist is created in the same plan: the check waits for apply.
				Config: agent("hello $${A2A_ACC_GREETING}"),
				Check: resource.ComposeAggregateTestCheckFunc(
					acc.recordPID(),
					resource.TestCheckResourceAttr(agentAddr, "injected_env.#", "1"),
					resource.TestCheckResourceAttr(agentAddr, "injected_env.0", "A2A_ACC_GREETING"),
					checkCard(descriptionIs("hello "+greeting)),
					acc.checkNotPersisted(greeting),
				),
			},
			{
				// The allowlist exists now: a variable it lacks fails the plan.
				Config:      agent("hello $${A2A_ACC_GREETING} and $${A2A_ACC_NOT_ALLOWED}"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`disallowed variables A2A_ACC_NOT_ALLOWED`),
			},
			{
				// The refused plan changed nothing.
				Config: agent("hello $${A2A_ACC_GREETING}"),
				Check:  checkCard(descriptionIs("hello " + greeting)),
			},
		},
	})
}

func TestAccAgent_planTimeErrors(t *testing.T) {
	acc := newAccTest(t)
	tests := []struct {
		name   string
		config string
		want   string
	}{
		{"bad TOML", "[agent]\nname = \"Bad\"\ndescription = \"unterminated\n", `(?s)Invalid agent config.*line 3, column \d+`},
		{"unknown key", "[agent]\nname = \"Unknown\"\ncolour = \"blue\"\n", `(?s)line 3, column 1: unknown key "agent.colour"`},
		{"missing name", "[agent]\ndescription = \"nameless\"\n", `agent.name is required`},
		{"image on local", "[agent]\nname = \"Imaged\"\n[runtime]\nimage = \"example/agent:1\"\n", `(?s)Agent config refused by the runtime\s+.*\s+not\s+supported\s+by\s+this\s+adapter:.*needs\s+the\s+container\s+adapter`},
		{"variable without allowlist", "[agent]\nname = \"Leaky\"\ndescription = \"$${A2A_ACC_SECRET}\"\n", `(?s)disallowed variables\s+A2A_ACC_SECRET`},
	}
	steps := make([]resource.TestStep, len(tests))
	for i, tt := range tests {
		steps[i] = resource.TestStep{
			Config:      acc.agent(tt.config),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(tt.want),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps:                    steps,
	})
}

// TestAccAgent_failedStartLeavesNothing creates an agent that exits at
// start: the apply fails with its log tail, nothing of it is kept, and the
// fixed config then creates it afresh.
func TestAccAgent_failedStartLeavesNothing(t *testing.T) {
	acc := newAccTest(t)
	// The config passes every plan-time check, but the variable it needs is
	// empty, so the agent host exits at start naming it.
	const empty = "A2A_ACC_EMPTY_VAR"
	broken, allowlist := acc.brokenAgent("Acc Broken", empty, "acc-broken", "20s")
	fixed := acc.agent(echoConfig("Acc Broken", "fixed")) + allowlist

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: broken,
				ExpectError: regexp.MustCompile(`(?s)Agent acc-broken did not start.*removed\s+again.*Last\s+\d+\s+lines\s+of\s+the\s+agent's\s+log.*` +
					`expands\s+to\s+an\s+empty\s+token.*set\s+` + empty),
			},
			{
				PreConfig: func() {
					if err := acc.checkNoAgents(nil); err != nil {
						t.Fatalf("after the failed create: %v", err)
					}
				},
				Config: fixed,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					acc.recordPID(),
					checkCard(descriptionIs("fixed")),
				),
			},
		},
	})
}

// TestAccAgent_replacedKeepsPort replaces an agent (terraform apply
// -replace) on each adapter: the port the runtime allocated to it is free
// once the old agent is deleted, so the new one gets it back, and clients
// reach it where they did.
func TestAccAgent_replacedKeepsPort(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) (config string, checkDestroy resource.TestCheckFunc)
	}{
		{"local", func(t *testing.T) (string, resource.TestCheckFunc) {
			acc := newAccTest(t)
			return acc.agent(echoConfig("Acc Replaced Port", "replaced")), acc.checkNothingLeft
		}},
		{"container", func(t *testing.T) (string, resource.TestCheckFunc) {
			c := newContainerAccTest(t)
			name, _ := c.agentName("Acc Ctr Replaced Port")
			return c.agent(echoConfig(name, "replaced")), c.checkNoContainers
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config, checkDestroy := tt.setup(t)
			samePort := statecheck.CompareValue(compare.ValuesSame())
			newInstance := statecheck.CompareValue(compare.ValuesDiffer())
			track := func() []statecheck.StateCheck {
				return []statecheck.StateCheck{
					samePort.AddStateValue(agentAddr, at("port")),
					newInstance.AddStateValue(agentAddr, at("instance")),
				}
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             checkDestroy,
				Steps: []resource.TestStep{
					{Config: config, ConfigStateChecks: track()},
					{
						Config: config,
						Taint:  []string{agentAddr},
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionDestroyBeforeCreate),
						}},
						Check: resource.ComposeAggregateTestCheckFunc(
							resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
							checkCard(descriptionIs("replaced")),
						),
						ConfigStateChecks: track(),
					},
				},
			})
		})
	}
}

// TestAccAgent_kubernetesOnLocal: the kubernetes attribute is refused at
// plan on the local adapter, naming the adapter it needs.
func TestAccAgent_kubernetesOnLocal(t *testing.T) {
	acc := newAccTest(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      acc.agent("[agent]\nname = \"Acc Kube On Local\"", "  kubernetes = { service_account = \"agents\" }"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Kubernetes settings on another adapter.*local\s+adapter.*kubernetes\s+block\s+in\s+the\s+provider`),
		}},
	})
}
