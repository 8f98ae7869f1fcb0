//go:build linux

package provider

import (
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestAccAgent_changedVariable: an allowlisted variable given another value
// in terraform's environment, with nothing else changed, plans a restart
// of the agent that reads it, with a warning naming the variable; apply
// gives the agent the new value, and the plan after it is empty. Its
// value shows nowhere in state. The README's quickstart relies on it: set
// GREETING to change what the greeter says.
func TestAccAgent_changedVariable(t *testing.T) {
	requireAcc(t)
	stateDir := t.TempDir()
	w := newDevWorld(t, stateDir)
	w.write("main.tf", providerOf(stateDir)+`
resource "a2a_env_allowlist" "greet" {
  name      = "acc-changing"
  variables = ["A2A_ACC_CHANGING"]
}

resource "a2a_agent" "greeter" {
  env_allowlist = a2a_env_allowlist.greet.reference
  config        = "[agent]\nname = \"Acc Changing\"\ndescription = \"Says $${A2A_ACC_CHANGING:-nothing}\"\n"
}

data "a2a_agent_card" "greeter" {
  url = a2a_agent.greeter.card_url
}

output "says" {
  value = data.a2a_agent_card.greeter.description
}
`)
	w.destroyAtCleanup()
	base := w.env
	withValue := func(v string) { w.env = append(append([]string{}, base...), "A2A_ACC_CHANGING="+v) }

	withValue("hello-first")
	w.terraform("apply", "-auto-approve", "-input=false")
	if says := w.terraform("output", "-raw", "says"); says != "Says hello-first" {
		t.Fatalf("the agent says %q, want %q", says, "Says hello-first")
	}
	if out, code := w.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Fatalf("the plan with the same value is not empty (exit %d):\n%s", code, out)
	}

	withValue("hello-second")
	out, code := w.run("plan", "-detailed-exitcode", "-input=false")
	if code != 2 || !printed("Agent acc-changing will be restarted: A2A_ACC_CHANGING changed").MatchString(out) {
		t.Fatalf("a changed value of an injected variable does not plan a restart with a warning naming it (exit %d):\n%s", code, out)
	}
	w.terraform("apply", "-auto-approve", "-input=false")
	if says := w.terraform("output", "-raw", "says"); says != "Says hello-second" {
		t.Errorf("after apply the agent says %q, want %q", says, "Says hello-second")
	}
	if out, code := w.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Errorf("the plan after applying the new value is not empty (exit %d):\n%s", code, out)
	}
	state := w.terraform("state", "pull")
	if strings.Contains(state, "hello-first\"") || strings.Contains(strings.ReplaceAll(state, "Says hello-second", ""), "hello-second") {
		t.Errorf("a value of the variable shows in state beyond the card the agent serves:\n%s", state)
	}

	w.terraform("destroy", "-auto-approve", "-input=false")
	if left, err := statedirtest.Leftovers(stateDir); err != nil || len(left) > 0 {
		t.Errorf("destroy left %v in the state dir (%v)", left, err)
	}
}
