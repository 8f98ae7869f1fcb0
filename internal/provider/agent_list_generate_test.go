//go:build linux

package provider

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// TestAccAgentList_generateConfig adopts, in a configuration of its own,
// the agents another configuration made, as a team adopting its fleet
// would: terraform query -generate-config-out writes a resource and an
// import block for each agent the runtime holds (one of them stopped, one
// drawing on an allowlist), warning about one whose record is damaged and
// leaving it out; an apply of that configuration imports every agent with
// nothing to change, and the plan after it is empty.
func TestAccAgentList_generateConfig(t *testing.T) {
	requireAcc(t)
	cli := newerTerraform(t)
	stateDir := t.TempDir()
	t.Setenv("GEN_GREETING", "hello")

	owner := newDevWorld(t, stateDir)
	owner.useTerraform(cli)
	owner.write("main.tf", providerOf(stateDir)+`

resource "a2a_env_allowlist" "greet" {
  name      = "gen-greet"
  variables = ["GEN_GREETING"]
}

resource "a2a_agent" "greeter" {
  config = <<-EOT
    [agent]
    name = "Gen Greeter"
    description = "$${GEN_GREETING}"
  EOT
  env_allowlist = a2a_env_allowlist.greet.reference
}

resource "a2a_agent" "idle" {
  config  = "[agent]\nname = \"Gen Idle\"\n"
  running = false
}

resource "a2a_agent" "plain" {
  config = file("${path.module}/plain.toml")
}

resource "a2a_agent" "damaged" {
  config = "[agent]\nname = \"Gen Damaged\"\n"
}
`)
	owner.write("plain.toml", "[agent]\nname = \"Gen Plain\"\ndescription = \"from a file\"\n\n[[skills]]\nid = \"echo\"\nname = \"Echo\"\n")
	owner.destroyAtCleanup()
	owner.terraform("apply", "-auto-approve", "-input=false")
	recordDamage["record invalid"](t, stateDir, "gen-damaged")

	adopter := newDevWorld(t, stateDir)
	adopter.useTerraform(cli)
	adopter.write("main.tf", providerOf(stateDir))
	// The list resource's example: its first list holds every agent, its
	// second none of these.
	adopter.write("fleet.tfquery.hcl", string(readFile(t, filepath.Join(examplesRoot, "list-resources", "a2a_agent", "list-resource.tfquery.hcl"))))
	adopter.destroyAtCleanup()
	out := strings.Join(strings.Fields(adopter.terraform("query", "-generate-config-out=generated.tf")), " ")
	for _, want := range []string{"Agent gen-damaged cannot be read and is not listed", filepath.Join("agents", "gen-damaged.json"),
		"Gen Greeter (gen-greeter)", "Gen Idle (gen-idle)", "Gen Plain (gen-plain)"} {
		if !strings.Contains(out, want) {
			t.Errorf("terraform query does not say %q:\n%s", want, out)
		}
	}
	generated := string(readFile(t, filepath.Join(adopter.dir, "generated.tf")))
	if imports := regexp.MustCompile(`(?m)^import \{`).FindAllString(generated, -1); len(imports) != 3 || strings.Contains(generated, "gen-damaged") {
		t.Fatalf("the generated config has %d import blocks, want 3 and none of gen-damaged:\n%s", len(imports), generated)
	}
	applied := strings.Join(strings.Fields(adopter.terraform("apply", "-auto-approve", "-input=false")), " ")
	if !strings.Contains(applied, "3 imported, 0 added, 0 changed, 0 destroyed") {
		t.Errorf("the apply of the generated config did more than import:\n%s\n\n%s", applied, generated)
	}
	if out, code := adopter.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Errorf("the plan after adopting is not empty (exit %d):\n%s", code, out)
	}

	adopter.terraform("destroy", "-auto-approve", "-input=false")
	owner.terraform("destroy", "-auto-approve", "-input=false")
	if left, err := statedirtest.Leftovers(stateDir); err != nil || len(left) > 0 {
		t.Errorf("destroy left %v in the state dir (%v)", left, err)
	}
}
