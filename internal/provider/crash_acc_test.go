//go:build linux

package provider

import (
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"
)

// crashAgents are the agents every fault-injection scenario declares:
// several, so that a crash finds some done, one midway and some not begun.
var crashAgents = []string{"alpha", "bravo", "charlie"}

// The crash points of the provider and the local adapter, by the
// operation that reaches them. The second hit of a point crashes, so that
// one agent has passed it when another dies there.
var crashPoints = map[string][]string{
	"create": {
		"local-provision-recorded", "local-provision-configured", "provider-create-provisioned",
		"local-start-intended", "local-start-spawned", "local-start-recorded", "provider-settle-started",
	},
	"update": {
		"local-provision-recorded", "local-provision-configured", "provider-update-provisioned",
		"local-stop-stopped", "provider-update-stopped",
		"local-start-intended", "local-start-spawned", "local-start-recorded", "provider-settle-started",
	},
	"delete": {
		"local-stop-stopped", "local-deprovision-stopped", "local-deprovision-removing", "provider-delete-deprovisioned",
	},
}

// TestAccCrash_provider kills the provider plugin (SIGKILL) at every crash
// point of create, update and delete of several local agents, then proves
// that one plain apply (or destroy) converges: the plan after it is empty,
// every agent process belongs to exactly one resource in state, and after
// destroy nothing of the state dir runs or remains.
func TestAccCrash_provider(t *testing.T) {
	requireAcc(t)
	runCrashPoints(t, func(*testing.T) crashAdapter { return localAgents{} }, crashPoints)
}

// containerCrashPoints are the crash points a container agent's create,
// update and delete reach.
var containerCrashPoints = map[string][]string{
	"create": {"container-provision-intended", "provider-create-provisioned", "provider-settle-started"},
	"update": {"container-provision-intended", "provider-update-provisioned", "provider-update-stopped", "provider-settle-started"},
	"delete": {"provider-delete-deprovisioned"},
}

// TestAccCrash_container is TestAccCrash_provider for container agents:
// every agent in state runs as exactly one container, its instance, and
// destroy leaves no container behind.
func TestAccCrash_container(t *testing.T) {
	requireAcc(t)
	needEngine(t)
	runCrashPoints(t, func(*testing.T) crashAdapter { return containerAgents{} }, containerCrashPoints)
}

// runCrashPoints runs, for every crash point of each operation, a world on
// the adapter that adapter makes for the subtest: the provider dies at the
// point's second hit, and one apply (or destroy) must then converge.
func runCrashPoints(t *testing.T, adapter func(*testing.T) crashAdapter, points map[string][]string) {
	for op, points := range points {
		for _, point := range points {
			t.Run(op+"/"+point, func(t *testing.T) {
				w := newCrashWorld(t, adapter(t))
				w.declare("first", crashAgents...)
				at := point + ":2"
				switch op {
				case "create":
					if !w.crashAt(at, "apply", "-auto-approve", "-input=false") {
						t.Fatalf("the apply did not reach crash point %s", at)
					}
					w.converge()
				case "update":
					w.converge()
					w.declare("second", crashAgents...)
					if !w.crashAt(at, "apply", "-auto-approve", "-input=false") {
						t.Fatalf("the apply did not reach crash point %s", at)
					}
					w.converge()
				case "delete":
					w.converge()
					if !w.crashAt(at, "destroy", "-auto-approve", "-input=false") {
						t.Fatalf("the destroy did not reach crash point %s", at)
					}
				}
				w.destroyed()
			})
		}
	}
}

// TestAccCrash_terraformKilled kills a real terraform apply, with its
// provider plugin, at seeded random moments; one apply must then converge.
func TestAccCrash_terraformKilled(t *testing.T) {
	requireAcc(t)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range 3 {
		delay := time.Duration(200+rng.IntN(2500)) * time.Millisecond
		t.Run(delay.String(), func(t *testing.T) {
			w := newCrashWorld(t, localAgents{})
			w.declare("first", crashAgents...)
			if i > 0 {
				w.converge()
				w.declare("second", crashAgents...)
			}
			cmd, _ := w.command(nil, "apply", "-auto-approve", "-input=false")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			w.converge()
			w.destroyed()
		})
	}
}

// requireAcc runs a test only under TF_ACC, like the framework's own
// acceptance tests.
func requireAcc(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
}
