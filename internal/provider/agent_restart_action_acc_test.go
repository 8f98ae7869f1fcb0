//go:build linux

package provider

import (
	"testing"
)

// TestAccAgentRestartAction: terraform apply -invoke of a2a_agent_restart
// restarts a running agent with the value its allowlisted variable has
// now, a rotated secret, in a new process on the same address, after which
// the plan is empty; an agent that is not running is not started, and the
// action says why.
func TestAccAgentRestartAction(t *testing.T) {
	requireAcc(t)
	cli := newerTerraform(t)
	stateDir := t.TempDir()
	w := newDevWorld(t, stateDir)
	w.useTerraform(cli)
	w.env = append(w.env, "ROT_VALUE=rotated-before")
	w.write("main.tf", providerOf(stateDir)+`
resource "a2a_env_allowlist" "rot" {
  name      = "rot-value"
  variables = ["ROT_VALUE"]
}

resource "a2a_agent" "rot" {
  config        = "[agent]\nname = \"Rotating\"\ndescription = \"$${ROT_VALUE}\"\n"
  env_allowlist = a2a_env_allowlist.rot.reference
}

resource "a2a_agent" "idle" {
  config  = "[agent]\nname = \"Restart Idle\"\n"
  running = false
}

action "a2a_agent_restart" "rot" {
  config {
    id = a2a_agent.rot.id
  }
}

action "a2a_agent_restart" "idle" {
  config {
    id      = a2a_agent.idle.id
    timeout = "30s"
  }
}

output "card_url" {
  value = a2a_agent.rot.card_url
}
`)
	w.destroyAtCleanup()
	w.terraform("apply", "-auto-approve", "-input=false")
	cardURL := w.terraform("output", "-raw", "card_url")
	before := instanceOf(t, stateDir, "rotating")
	if err := fetchCard(cardURL, descriptionIs("rotated-before")); err != nil {
		t.Fatal(err)
	}

	w.env = append(w.env, "ROT_VALUE=rotated-after")
	out := w.terraform("apply", "-auto-approve", "-input=false", "-invoke=action.a2a_agent_restart.rot")
	for _, want := range []string{"Restarting agent rotating, stopping it and starting it again", "Agent rotating is healthy again"} {
		if !printed(want).MatchString(out) {
			t.Errorf("the invoke does not show %q:\n%s", want, out)
		}
	}
	if err := fetchCard(cardURL, descriptionIs("rotated-after")); err != nil {
		t.Errorf("after the restart, at the same address: %v", err)
	}
	if out, code := w.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Errorf("the plan after the restart is not empty (exit %d):\n%s", code, out)
	}
	if after := instanceOf(t, stateDir, "rotating"); after == before {
		t.Errorf("the agent runs in the process it ran in before the restart (%s)", after)
	}

	out, code := w.run("apply", "-auto-approve", "-input=false", "-invoke=action.a2a_agent_restart.idle")
	if code == 0 || !printed("Cannot restart agent restart-idle.*not running.*terraform apply starts it").MatchString(out) {
		t.Errorf("the restart of an agent that is not running = exit %d, want a failure saying it is not running:\n%s", code, out)
	}
	if agents, err := listAgentsIn(t, stateDir); err != nil || len(agents) != 2 || agents[0].ID != "restart-idle" || agents[0].Running {
		t.Errorf("after the refused restart the agents are %+v (%v), want restart-idle still stopped", agents, err)
	}
}

// instanceOf is the instance the local adapter in stateDir runs agent id in.
func instanceOf(t *testing.T, stateDir, id string) string {
	t.Helper()
	agents, err := listAgentsIn(t, stateDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		if a.ID == id {
			return a.Instance
		}
	}
	t.Fatalf("agent %s is not in %v", id, agents)
	return ""
}
