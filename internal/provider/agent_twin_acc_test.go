//go:build linux

package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestAccAgent_twinNames declares two agents whose names spell one id,
// "Twin" and "twin". Together in one configuration they are refused at
// plan, naming both and the id, and nothing is created. Added to a
// configuration that already runs "Twin", the new one only warns at plan
// (Terraform plans the same way before a destroy) and Create refuses it,
// saving nothing of it. Either way terraform destroy, which plans the
// configuration first, succeeds and leaves nothing in the state dir.
//
// It runs the terraform CLI itself: the test framework destroys with
// -refresh=false, which skips the plan that used to fail.
func TestAccAgent_twinNames(t *testing.T) {
	needTFAcc(t)
	stateDir := t.TempDir()
	w := newDevWorld(t, stateDir)
	w.destroyAtCleanup()
	twin := func(name string) string {
		return fmt.Sprintf("resource \"a2a_agent\" %q {\n  config = <<-EOT\n%s\n  EOT\n}\n", "a"+name, indent(echoConfig(name, "twin")))
	}
	nothingLeft := func(when string) {
		t.Helper()
		if agents, err := listAgentsIn(t, stateDir); err != nil || len(agents) > 0 {
			t.Fatalf("%s, the runtime records %+v (%v), want no agent", when, agents, err)
		}
		if left, err := statedirtest.Leftovers(stateDir); err != nil || len(left) > 0 {
			t.Fatalf("%s, the state dir holds %v (%v), want nothing", when, left, err)
		}
	}

	w.write("main.tf", providerOf(stateDir)+twin("Twin")+twin("twin"))
	out, code := w.run("apply", "-auto-approve", "-input=false")
	refused := regexp.MustCompile(`(?s)Error: Agents "(Twin|twin)" and "(Twin|twin)" both get id twin.*Nothing\s+has\s+been\s+created.*\[agent\]`)
	if code == 0 || !refused.MatchString(out) || strings.Contains(out, "Creating...") {
		t.Fatalf("apply of both twins (exit %d) is not refused at plan naming both and the id:\n%s", code, out)
	}
	if m := refused.FindStringSubmatch(out); m[1] == m[2] {
		t.Fatalf("the refusal names %q twice, want both names:\n%s", m[1], out)
	}
	nothingLeft("after the refused plan")
	w.terraform("destroy", "-auto-approve", "-input=false")
	nothingLeft("after destroy")

	// "Twin" runs first; "twin" is added to its configuration.
	w.write("main.tf", providerOf(stateDir)+twin("Twin"))
	w.terraform("apply", "-auto-approve", "-input=false")
	agents, err := listAgentsIn(t, stateDir)
	if err != nil || len(agents) != 1 || agents[0].Name != "Twin" {
		t.Fatalf("after applying Twin the runtime records %+v (%v)", agents, err)
	}
	var pid int
	if _, err := fmt.Sscan(agents[0].Instance, &pid); err != nil {
		t.Fatalf("instance %q is not a pid: %v", agents[0].Instance, err)
	}
	w.write("main.tf", providerOf(stateDir)+twin("Twin")+twin("twin"))
	out, code = w.run("apply", "-auto-approve", "-input=false")
	if code == 0 || !printed(`Warning: Agent id twin is taken.*Error: Agent already exists.*a2a_agent.atwin`).MatchString(out) {
		t.Fatalf("apply of twin beside the running Twin (exit %d) does not warn at plan and fail at create:\n%s", code, out)
	}
	if listed := w.terraform("state", "list"); strings.TrimSpace(listed) != "a2a_agent.aTwin" {
		t.Fatalf("state lists %q, want only a2a_agent.aTwin: the refused create must save nothing", listed)
	}
	if agents, err := listAgentsIn(t, stateDir); err != nil || len(agents) != 1 || agents[0].Name != "Twin" || agents[0].Instance != fmt.Sprint(pid) {
		t.Fatalf("after the refused create the runtime records %+v (%v), want Twin untouched as process %d", agents, err, pid)
	}
	out = w.terraform("destroy", "-auto-approve", "-input=false")
	if !strings.Contains(out, "Destroy complete! Resources: 1 destroyed.") {
		t.Fatalf("destroy did not destroy Twin alone:\n%s", out)
	}
	nothingLeft("after destroying Twin")
	if !waitGone(pid) {
		t.Fatalf("Twin's process %d still runs after destroy", pid)
	}
}
