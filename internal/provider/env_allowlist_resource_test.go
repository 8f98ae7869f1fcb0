package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

const allowlistAddr = "a2a_env_allowlist.test"

func (a *accTest) allowlist(name, description string, variables ...string) string {
	vars := ""
	for i, v := range variables {
		if i > 0 {
			vars += ", "
		}
		vars += fmt.Sprintf("%q", v)
	}
	desc := ""
	if description != "" {
		desc = fmt.Sprintf("  description = %q\n", description)
	}
	return a.provider() + fmt.Sprintf("resource \"a2a_env_allowlist\" \"test\" {\n  name      = %q\n  variables = [%s]\n%s}\n", name, vars, desc)
}

// storedAllowlist reads an allowlist the way agents will: from the store.
func (a *accTest) storedAllowlist(name string) (agentruntime.EnvAllowlist, error) {
	dir, err := statedir.Open(a.stateDir)
	if err != nil {
		return agentruntime.EnvAllowlist{}, err
	}
	return statedir.NewAllowlists(dir).Get(context.Background(), name)
}

func (a *accTest) checkStored(name string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := a.storedAllowlist(name)
		if err != nil {
			return err
		}
		if fmt.Sprint(got.Variables) != fmt.Sprint(want) {
			return fmt.Errorf("stored allowlist %q has %v, want %v", name, got.Variables, want)
		}
		return nil
	}
}

func (a *accTest) checkNoAllowlists(*terraform.State) error {
	entries, err := os.ReadDir(filepath.Join(a.stateDir, "allowlists"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("destroy left allowlist %s", entries[0].Name())
	}
	return nil
}

func TestAccEnvAllowlist_lifecycle(t *testing.T) {
	acc := newAccTest(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNoAllowlists,
		Steps: []resource.TestStep{
			{
				Config: acc.allowlist("acc-team", "", "B_TOKEN", "A_URL"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(allowlistAddr, "id", "acc-team"),
					resource.TestCheckResourceAttr(allowlistAddr, "description", ""),
					acc.checkStored("acc-team", "A_URL", "B_TOKEN"),
				),
			},
			{
				Config: acc.allowlist("acc-team", "keys of the team's agents", "A_URL", "C_MODEL"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(allowlistAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(allowlistAddr, at("variables"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("A_URL"), knownvalue.StringExact("C_MODEL")})),
				},
				Check: acc.checkStored("acc-team", "A_URL", "C_MODEL"),
			},
			{
				ResourceName:      allowlistAddr,
				ImportState:       true,
				ImportStateId:     "acc-team",
				ImportStateVerify: true,
			},
			{
				// Deleted out of band: refresh drops it and the plan recreates it.
				PreConfig: func() {
					dir, err := statedir.Open(acc.stateDir)
					if err != nil {
						t.Fatal(err)
					}
					if err := statedir.NewAllowlists(dir).Delete(context.Background(), "acc-team"); err != nil {
						t.Fatal(err)
					}
				},
				Config: acc.allowlist("acc-team", "keys of the team's agents", "A_URL", "C_MODEL"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(allowlistAddr, plancheck.ResourceActionCreate),
				}},
				Check: acc.checkStored("acc-team", "A_URL", "C_MODEL"),
			},
			{
				Config: acc.allowlist("acc-renamed", "", "A_URL"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(allowlistAddr, plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					acc.checkStored("acc-renamed", "A_URL"),
					func(*terraform.State) error {
						if _, err := acc.storedAllowlist("acc-team"); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
							return fmt.Errorf("the old allowlist is still stored (err %w)", err)
						}
						return nil
					},
				),
			},
		},
	})
}

// TestAccEnvAllowlist_noVariables keeps an allowlist that allows nothing
// (variables = []), created so and emptied by an update: the plan after
// each apply, and after an import, must be empty.
func TestAccEnvAllowlist_noVariables(t *testing.T) {
	acc := newAccTest(t)
	empty := acc.allowlist("acc-none", "")
	noPlan := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	noVariables := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(allowlistAddr, at("variables"), knownvalue.SetExact([]knownvalue.Check{})),
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNoAllowlists,
		Steps: []resource.TestStep{
			{Config: empty, ConfigPlanChecks: noPlan, ConfigStateChecks: noVariables, Check: acc.checkStored("acc-none")},
			{Config: empty, PlanOnly: true},
			{Config: acc.allowlist("acc-none", "", "A_URL"), Check: acc.checkStored("acc-none", "A_URL")},
			{Config: empty, ConfigPlanChecks: noPlan, ConfigStateChecks: noVariables, Check: acc.checkStored("acc-none")},
			{
				ResourceName:      allowlistAddr,
				ImportState:       true,
				ImportStateId:     "acc-none",
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccEnvAllowlist_invalid(t *testing.T) {
	acc := newAccTest(t)
	tests := []struct {
		name   string
		config string
		want   string
	}{
		{"bad variable name", acc.allowlist("acc-bad", "", "GOOD", "1BAD"), `(?s)Invalid environment variable name.*"1BAD"`},
		{"variable with a dash", acc.allowlist("acc-bad", "", "NOT-VALID"), `"NOT-VALID"`},
		{"name not a slug", acc.allowlist("Acc Bad", "", "GOOD"), `(?s)Invalid name.*try\s+"acc-bad"`},
	}
	steps := make([]resource.TestStep, len(tests))
	for i, tt := range tests {
		steps[i] = resource.TestStep{Config: tt.config, PlanOnly: true, ExpectError: regexp.MustCompile(tt.want)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNoAllowlists,
		Steps:                    steps,
	})
}
