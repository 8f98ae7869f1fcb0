package provider

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// agentsPerRun is how many agents each run creates: as many as terraform
// creates at once by default.
const agentsPerRun = 10

// TestAccAgent_concurrentRuns applies two configurations at once, each in
// its own terraform working dir, against one state dir: twenty agents are
// provisioned and started at once, ten at a time per run. Once both runs
// have applied, every agent of both must be healthy on a port of its own
// and recorded as its run's state says; once both have destroyed, nothing
// of any agent may be left.
func TestAccAgent_concurrentRuns(t *testing.T) {
	acc := newAccTest(t)
	runs := []string{"Acc Left", "Acc Right"}
	var allIDs []string
	for _, run := range runs {
		for i := range agentsPerRun {
			allIDs = append(allIDs, agentconfig.Slug(run+" "+strconv.Itoa(i)))
		}
	}
	slices.Sort(allIDs)
	// applied[i] closes once run i has applied, or has ended without.
	applied := make([]chan struct{}, len(runs))
	markApplied := make([]func(), len(runs))
	for i := range runs {
		applied[i] = make(chan struct{})
		markApplied[i] = sync.OnceFunc(func() { close(applied[i]) })
	}
	bothApplied := func(i int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			markApplied[i]()
			for _, ch := range applied {
				<-ch
			}
			return nil
		}
	}

	t.Run("runs", func(t *testing.T) {
		for i, run := range runs {
			t.Run(run, func(t *testing.T) {
				t.Parallel()
				defer markApplied[i]()
				config := fmt.Sprintf("[agent]\nname = \"%s ${count.index}\"\ndescription = \"one of many\"\n", run)
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
					Steps: []resource.TestStep{{
						Config: acc.agent(config, fmt.Sprintf("  count = %d", agentsPerRun)),
						Check: resource.ComposeTestCheckFunc(
							bothApplied(i),
							acc.checkOnlyAgents(allIDs...),
							acc.checkAllHealthyOnOwnPorts,
							acc.checkRecordsMatchState,
						),
					}},
				})
			})
		}
	})
	if err := acc.checkNothingLeft(nil); err != nil {
		t.Error(err)
	}
}

// checkAllHealthyOnOwnPorts verifies that every agent of the state dir is
// healthy and that no two share a port, and remembers their processes.
func (a *accTest) checkAllHealthyOnOwnPorts(*terraform.State) error {
	agents, err := a.listAgents()
	if err != nil {
		return err
	}
	ports := map[int]string{}
	for _, ag := range agents {
		if ag.Health != agentruntime.HealthHealthy {
			return fmt.Errorf("agent %s is %s, want healthy", ag.ID, ag.Health)
		}
		if other, taken := ports[ag.Port]; taken {
			return fmt.Errorf("agents %s and %s share port %d", other, ag.ID, ag.Port)
		}
		ports[ag.Port] = ag.ID
		pid, err := strconv.Atoi(ag.Instance)
		if err != nil {
			return fmt.Errorf("agent %s instance %q is not a pid", ag.ID, ag.Instance)
		}
		a.rememberPID(pid)
	}
	return nil
}

// checkRecordsMatchState verifies that the state dir records each agent of
// the run's state as the state holds it.
func (a *accTest) checkRecordsMatchState(s *terraform.State) error {
	agents, err := a.listAgents()
	if err != nil {
		return err
	}
	byID := map[string]agentruntime.Agent{}
	for _, ag := range agents {
		byID[ag.ID] = ag
	}
	checked := 0
	for addr, r := range s.RootModule().Resources {
		if r.Type != "a2a_agent" {
			continue
		}
		attrs := r.Primary.Attributes
		ag, ok := byID[attrs["id"]]
		if !ok {
			return fmt.Errorf("%s (id %s) has no record in the state dir", addr, attrs["id"])
		}
		recorded := map[string]string{
			"name": ag.Name, "port": strconv.Itoa(ag.Port), "endpoint": ag.Endpoint,
			"config_sha256": ag.ConfigSHA256, "instance": ag.Instance,
		}
		for attr, want := range recorded {
			if attrs[attr] != want {
				return fmt.Errorf("%s.%s is %q in state but %q in the state dir", addr, attr, attrs[attr], want)
			}
		}
		checked++
	}
	if checked != agentsPerRun {
		return fmt.Errorf("state holds %d agents, want %d", checked, agentsPerRun)
	}
	return nil
}
