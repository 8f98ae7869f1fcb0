package provider

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// killSupervisorOf SIGKILLs the supervisor of the local agent running as
// pid, found by the identity both carry, and waits until it is gone: a
// test that kills the agent afterwards crashes it for good, as nothing is
// left to restart it.
func killSupervisorOf(t testing.TB, pid int) {
	t.Helper()
	procs := local.ScanProcesses()
	for _, agent := range procs {
		if agent.PID != pid || agent.Supervisor {
			continue
		}
		for _, sup := range procs {
			if sup.Supervisor && sup.AgentID == agent.AgentID && sup.StateDirID == agent.StateDirID {
				if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
					t.Fatalf("kill supervisor %d: %v", sup.PID, err)
				}
				if !waitGone(sup.PID) {
					t.Fatalf("supervisor %d survived SIGKILL", sup.PID)
				}
			}
		}
	}
}

// TestAccAgent_supervisedRestart kills a local agent behind Terraform's
// back: its supervisor restarts it with no apply, the refresh reads the
// new instance with restart_count 1, and the plan after it is empty.
func TestAccAgent_supervisedRestart(t *testing.T) {
	acc := newAccTest(t)
	config := acc.agent(echoConfig("Acc Supervised", "supervised"))
	var pid int
	rememberPID := rememberInstancePID(&pid)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(acc.recordPID(), rememberPID,
					resource.TestCheckResourceAttr(agentAddr, "restart_count", "0")),
			},
			{
				PreConfig: func() {
					if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
						t.Fatalf("kill agent %d: %v", pid, err)
					}
					acc.waitRestarted(pid)
				},
				Config: config,
				// The restart is the runtime's: refresh reads it, the plan
				// changes nothing.
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(agentAddr, at("restart_count"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("healthy")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(acc.recordPID(),
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
						if v == strconv.Itoa(pid) {
							return fmt.Errorf("instance is still the killed process %d", pid)
						}
						return nil
					})),
			},
		},
	})
}

// waitRestarted polls the runtime until agent acc-supervised runs healthy
// on another process than pid.
func (a *accTest) waitRestarted(pid int) {
	a.t.Helper()
	rt, err := local.New(localOptions(a.t, statedirtest.Open(a.t, a.stateDir)))
	if err != nil {
		a.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := rt.Get(context.Background(), "acc-supervised")
		if err == nil && got.Health == agentruntime.HealthHealthy && got.Instance != "" && got.Instance != strconv.Itoa(pid) {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("the killed agent was not restarted in time: %+v (%v)", got, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
