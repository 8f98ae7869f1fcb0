package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// writeOnlyAgent declares an agent named name whose description (TOML,
// escaped for Terraform) may show two write-only values: WO_GREETING from a
// sensitive variable and WO_TOKEN from an ephemeral one.
func (a *accTest) writeOnlyAgent(name, description string, version int) string {
	return a.provider() + fmt.Sprintf(`
variable "greeting" {
  type      = string
  sensitive = true
}

variable "token" {
  type      = string
  ephemeral = true
}

resource "a2a_agent" "test" {
  config = <<-EOT
    [agent]
    name = %q
    description = "%s"
  EOT
  env_wo = {
    WO_GREETING = var.greeting
    WO_TOKEN    = var.token
  }
  env_wo_version = %d
}
`, name, description, version)
}

// The agent of TestAccAgent_writeOnlyValues, both values in its
// description, and where the local adapter keeps them.
const (
	woName        = "Acc Write Only"
	woDescription = "$${WO_GREETING} / $${WO_TOKEN}"
	writeOnlyFile = "local/secrets/acc-write-only.json"
)

// setWriteOnlyValues gives the variables new values for the next terraform run.
func setWriteOnlyValues(t *testing.T, greeting, token string) {
	t.Setenv("TF_VAR_greeting", greeting)
	t.Setenv("TF_VAR_token", token)
}

// planHoldsNone fails when the plan, as JSON, holds any of values; it first
// proves the plan holds the agent at all.
func planHoldsNone(values ...string) plancheck.PlanCheck { return planSearch{values} }

type planSearch struct{ values []string }

func (p planSearch) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	// Terraform itself keeps the values of variables that are not
	// ephemeral, sensitive ones included, in the plan's variables; the
	// secrets guide says so. The rest is what the provider planned.
	plan := *req.Plan
	plan.Variables = nil
	data, err := json.Marshal(plan)
	if err != nil {
		resp.Error = err
		return
	}
	if !strings.Contains(string(data), "env_wo_version") {
		resp.Error = fmt.Errorf("the plan does not hold the agent, so searching it proves nothing: %s", data)
		return
	}
	for _, v := range p.values {
		if strings.Contains(string(data), v) {
			resp.Error = fmt.Errorf("the plan holds a write-only value")
			return
		}
	}
}

// TestAccAgent_writeOnlyValues follows write-only values from sensitive and
// ephemeral variables to the agent, and proves them absent from state,
// plans, the trace log and every file but the one the runtime keeps them in;
// a change without a version bump changes nothing, a bump rolls them out,
// and a crashed agent restarts with the values it was given, not with
// whatever Terraform holds by then.
func TestAccAgent_writeOnlyValues(t *testing.T) {
	acc := newAccTest(t)
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_LOG", "TRACE")
	const (
		g1, t1 = "wo-greeting-one-81f2", "wo-token-one-c4a9"
		g2, t2 = "wo-greeting-two-37bd", "wo-token-two-e06a"
		g3, t3 = "wo-greeting-three-5a1c", "wo-token-three-9d24"
	)
	all := []string{g1, t1, g2, t2, g3, t3}
	setWriteOnlyValues(t, g1, t1)
	var pid int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:           acc.writeOnlyAgent(woName, woDescription, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{planHoldsNone(all...)}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCard(descriptionIs(g1+" / "+t1)),
					resource.TestCheckNoResourceAttr(agentAddr, "env_wo"),
					resource.TestCheckResourceAttr(agentAddr, "env_wo_version", "1"),
					acc.checkNotPersisted(g1, writeOnlyFile),
					acc.checkNotPersisted(t1, writeOnlyFile),
					checkPrivateFile(filepath.Join(acc.stateDir, writeOnlyFile)),
					acc.recordPID(),
				),
			},
			{
				// New values without a new version: Terraform cannot see
				// them, so nothing changes.
				PreConfig: func() { setWriteOnlyValues(t, g2, t2) },
				Config:    acc.writeOnlyAgent(woName, woDescription, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(), planHoldsNone(all...),
				}},
				Check: checkCard(descriptionIs(g1 + " / " + t1)),
			},
			{
				// The bump rolls them out.
				Config: acc.writeOnlyAgent(woName, woDescription, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate), planHoldsNone(all...),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCard(descriptionIs(g2+" / "+t2)),
					acc.checkNotPersisted(g2, writeOnlyFile),
					acc.checkNotPersisted(t2, writeOnlyFile),
					acc.checkNotPersisted(g1),
					acc.checkNotPersisted(t1),
					acc.recordPID(),
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
						pid, _ = strconv.Atoi(v)
						return nil
					}),
				),
			},
			{
				// The agent crashes, its supervisor with it; Terraform now
				// holds other values, but the restart it plans uses those
				// the agent was given.
				PreConfig: func() {
					killSupervisorOf(t, pid)
					if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
						t.Fatalf("kill agent %d: %v", pid, err)
					}
					if !waitGone(pid) {
						t.Fatalf("agent %d survived SIGKILL", pid)
					}
					setWriteOnlyValues(t, g3, t3)
				},
				Config: acc.writeOnlyAgent(woName, woDescription, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate), planHoldsNone(all...),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCard(descriptionIs(g2+" / "+t2)),
					acc.recordPID(),
					acc.checkNotPersisted(g3),
					acc.checkNotPersisted(t3),
				),
			},
		},
	})
	checkLogHoldsNone(t, logPath, all...)
}

// checkLogHoldsNone fails when the trace log holds any of values; it first
// proves the log holds the provider's own lines.
func checkLogHoldsNone(t *testing.T, logPath string, values ...string) {
	t.Helper()
	logged, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logged), "provisioned agent") || !strings.Contains(string(logged), "PlanResourceChange") {
		t.Fatalf("the trace log %s lacks the provider's lines, so searching it proves nothing", logPath)
	}
	for _, v := range values {
		if i := strings.Index(string(logged), v); i >= 0 {
			t.Errorf("a write-only value appears in the trace log %s: …%s…", logPath, logged[max(0, i-300):min(len(logged), i+50)])
		}
	}
}

// checkPrivateFile checks that path exists and only its owner may read it.
func checkPrivateFile(path string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		if perm := info.Mode().Perm(); perm != 0o600 {
			return fmt.Errorf("%s has mode %o, want 600", path, perm)
		}
		return nil
	}
}

// TestAccAgent_unsetVariableFailsPlan references an allowlisted variable
// that is not set: the plan fails naming it, whether the allowlist is new
// or stored, and a running agent is left running, even when tainted.
func TestAccAgent_unsetVariableFailsPlan(t *testing.T) {
	acc := newAccTest(t)
	const set, unset = "A2A_ACC_WO_SET", "A2A_ACC_WO_UNSET"
	t.Setenv(set, "present")
	t.Setenv(unset, "")
	if err := os.Unsetenv(unset); err != nil {
		t.Fatal(err)
	}
	allowlist := fmt.Sprintf("resource \"a2a_env_allowlist\" \"test\" {\n  name = \"acc-unset\"\n  variables = [%q, %q]\n}\n", set, unset)
	agent := func(description string) string {
		return acc.agent(echoConfig("Acc Unset", description), "  env_allowlist = a2a_env_allowlist.test.name") + allowlist
	}
	unsetError := regexp.MustCompile(`(?s)Agent config references variables without a value.*` + unset + `\s+\(agent\s+config\s+line\s+3`)
	var pid int
	alive := func() {
		if processGone(pid) {
			t.Fatalf("the running agent (pid %d) was stopped", pid)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				// The allowlist is created by the same plan.
				Config:      agent("$${" + unset + "}"),
				ExpectError: unsetError,
			},
			{
				Config: agent("hello $${" + set + "}"),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCard(descriptionIs("hello present")),
					acc.recordPID(),
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
						pid, _ = strconv.Atoi(v)
						return nil
					}),
				),
			},
			{
				Config:      agent("hello $${" + unset + "}"),
				ExpectError: unsetError,
			},
			{
				// A replacement is planned no differently.
				PreConfig:   alive,
				Taint:       []string{agentAddr},
				Config:      agent("hello $${" + unset + "}"),
				ExpectError: unsetError,
			},
			{
				PreConfig: alive,
				Config:    agent("hello $${" + unset + ":-nobody}"),
				Check:     checkCard(descriptionIs("hello nobody")),
			},
		},
	})
}

// TestAccAgent_allowlistChangeInOneApply adds a variable to an allowlist and
// references it in the same change: the agent, which refers to the
// allowlist's reference, is planned against the variables the allowlist is
// about to have, so one apply does both. A variable added that the agent
// does not use leaves it running untouched.
func TestAccAgent_allowlistChangeInOneApply(t *testing.T) {
	acc := newAccTest(t)
	t.Setenv("A2A_ACC_ONE_A", "alpha")
	t.Setenv("A2A_ACC_ONE_B", "beta")
	config := func(description string, variables ...string) string {
		return acc.agent(echoConfig("Acc One Apply", description), "  env_allowlist = a2a_env_allowlist.test.reference") +
			fmt.Sprintf("resource \"a2a_env_allowlist\" \"test\" {\n  name = \"acc-one-apply\"\n  variables = [\"%s\"]\n}\n",
				strings.Join(variables, `", "`))
	}
	var pid string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config("$${A2A_ACC_ONE_A}", "A2A_ACC_ONE_A"),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCard(descriptionIs("alpha")),
					resource.TestMatchResourceAttr(agentAddr, "env_allowlist", regexp.MustCompile(`^acc-one-apply:A2A_ACC_ONE_A@[0-9a-f]{12}$`)),
					resource.TestCheckResourceAttrPair(agentAddr, "env_allowlist", "a2a_env_allowlist.test", "reference"),
				),
			},
			{
				Config: config("$${A2A_ACC_ONE_A} $${A2A_ACC_ONE_B}", "A2A_ACC_ONE_A", "A2A_ACC_ONE_B"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCard(descriptionIs("alpha beta")),
					resource.TestCheckResourceAttr(agentAddr, "injected_env.#", "2"),
					acc.recordPID(),
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error { pid = v; return nil }),
				),
			},
			{
				Config: config("$${A2A_ACC_ONE_A} $${A2A_ACC_ONE_B}", "A2A_ACC_ONE_A", "A2A_ACC_ONE_B", "A2A_ACC_ONE_UNUSED"),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCard(descriptionIs("alpha beta")),
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
						if v != pid {
							return fmt.Errorf("the agent was restarted (pid %s, was %s) for a variable it does not use", v, pid)
						}
						return nil
					}),
				),
			},
			{
				// Removing a variable the config still uses fails the plan.
				Config:      config("$${A2A_ACC_ONE_A} $${A2A_ACC_ONE_B} again", "A2A_ACC_ONE_A"),
				ExpectError: regexp.MustCompile(`(?s)disallowed\s+variables\s+A2A_ACC_ONE_B`),
			},
		},
	})
}
