//go:build linux

package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// adoptByQuery runs, in a configuration of its own holding only provider,
// terraform query -generate-config-out with query, then applies what it
// generated: that must import want agents and change nothing, and the plan
// after it must be empty. It returns that world, and what query printed
// with its white space made single spaces.
func adoptByQuery(t *testing.T, cli, stateDir, provider, query string, want int) (*devWorld, string) {
	t.Helper()
	w := newDevWorld(t, stateDir)
	w.useTerraform(cli)
	w.write("main.tf", provider)
	w.write("fleet.tfquery.hcl", query)
	w.destroyAtCleanup()
	out := strings.Join(strings.Fields(w.terraform("query", "-generate-config-out=generated.tf")), " ")
	generated := string(readFile(t, filepath.Join(w.dir, "generated.tf")))
	if imports := regexp.MustCompile(`(?m)^import \{`).FindAllString(generated, -1); len(imports) != want {
		t.Fatalf("the generated config has %d import blocks, want %d:\n%s", len(imports), want, generated)
	}
	applied := w.terraform("apply", "-auto-approve", "-input=false")
	if !printed(fmt.Sprintf("%d imported, 0 added, 0 changed, 0 destroyed", want)).MatchString(applied) {
		t.Errorf("the apply of the generated config did more than import:\n%s\n\n%s", applied, generated)
	}
	if out, code := w.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Errorf("the plan after adopting is not empty (exit %d):\n%s", code, out)
	}
	return w, out
}

// TestAccAgentList_generateConfig adopts, in a configuration of its own,
// the agents another configuration made, as a team adopting its fleet
// would, with the list resource's example query: terraform query
// -generate-config-out writes a resource and an import block for each agent
// the runtime holds (one of them stopped, one drawing on an allowlist),
// warning about one whose record is damaged and leaving it out; an apply of
// that configuration imports every agent with nothing to change, and the
// plan after it is empty.
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

resource "a2a_agent" "keyed" {
  config = "[agent]\nname = \"Gen Keyed\"\n\n[auth]\nbearer_token = \"$${GEN_KEY}\"\n"
  env_wo = { GEN_KEY = "gen-write-only-value" }
}

resource "a2a_agent" "damaged" {
  config = "[agent]\nname = \"Gen Damaged\"\n"
}
`)
	owner.write("plain.toml", "[agent]\nname = \"Gen Plain\"\ndescription = \"from a file\"\n\n[[skills]]\nid = \"echo\"\nname = \"Echo\"\n")
	owner.destroyAtCleanup()
	owner.terraform("apply", "-auto-approve", "-input=false")
	recordDamage["record invalid"](t, stateDir, "gen-damaged")

	// Its first list holds every agent, its second none of these.
	example := string(readFile(t, filepath.Join(examplesRoot, "list-resources", "a2a_agent", "list-resource.tfquery.hcl")))
	adopter, out := adoptByQuery(t, cli, stateDir, providerOf(stateDir), example, 4)
	for _, want := range []string{"Agent gen-damaged cannot be read and is not listed", filepath.Join("agents", "gen-damaged.json"),
		"Gen Greeter (gen-greeter)", "Gen Idle (gen-idle)", "Gen Plain (gen-plain)", "Gen Keyed (gen-keyed)"} {
		if !strings.Contains(out, want) {
			t.Errorf("terraform query does not say %q:\n%s", want, out)
		}
	}
	// The agent with a write-only value plans with the generated env_wo =
	// null, keeping its value, and the plan says what to fill in before a
	// change that needs it.
	planned := strings.Join(strings.Fields(adopter.terraform("plan", "-input=false")), " ")
	if want := "env_wo = { GEN_KEY = <value> }"; !strings.Contains(planned, "Agent gen-keyed keeps write-only values") || !strings.Contains(planned, want) {
		t.Errorf("the plan of the adopted agent with a write-only value does not warn what to fill in (%s):\n%s", want, planned)
	}
	generated := string(readFile(t, filepath.Join(adopter.dir, "generated.tf")))
	keyed := strings.Index(generated, "Gen Keyed")
	bumped := generated[:keyed] + strings.Replace(generated[keyed:], "env_wo_version   = null", "env_wo_version   = 2", 1)
	adopter.write("generated.tf", bumped)
	refused, code := adopter.run("plan", "-input=false")
	if refused = strings.Join(strings.Fields(refused), " "); code == 0 || !strings.Contains(refused, "Agent gen-keyed needs its write-only values again") ||
		!strings.Contains(refused, "env_wo = { GEN_KEY = <value> }") {
		t.Errorf("a plan that provisions the adopted agent again without env_wo is not refused naming what to set (exit %d):\n%s", code, refused)
	}
	adopter.write("generated.tf", generated)
	for _, where := range []string{generated, string(readFile(t, filepath.Join(adopter.dir, "terraform.tfstate")))} {
		if strings.Contains(where, "gen-write-only-value") {
			t.Errorf("the write-only value shows in the adopter's files:\n%s", where)
		}
	}

	adopter.terraform("destroy", "-auto-approve", "-input=false")
	owner.terraform("destroy", "-auto-approve", "-input=false")
	if left, err := statedirtest.Leftovers(stateDir); err != nil || len(left) > 0 {
		t.Errorf("destroy left %v in the state dir (%v)", left, err)
	}
}

// TestAccContainerList_generateConfig does the same on the container
// adapter, whose engine the list reads the agents' labels from: an id
// prefix picks this test's agents from those of others on the engine.
func TestAccContainerList_generateConfig(t *testing.T) {
	requireAcc(t)
	cli := newerTerraform(t)
	c := newContainerAccTest(t)
	prefix := "listed-" + c.suffix + "-"
	provider := fmt.Sprintf("terraform {\n  required_providers {\n    a2a = { source = \"a2a-terraform/a2a\" }\n  }\n}\n\n"+
		"provider \"a2a\" {\n  state_dir = %q\n%s}\n", c.stateDir, c.adapterBlock)
	config := provider
	for _, agent := range []struct{ name, extra string }{{"Running", ""}, {"Idle", "  running = false\n"}} {
		name := "Listed " + c.suffix + " " + agent.name
		id := prefix + strings.ToLower(agent.name)
		c.ids = append(c.ids, id)
		config += fmt.Sprintf("resource \"a2a_agent\" %q {\n  config = \"[agent]\\nname = \\\"%s\\\"\\n\"\n%s}\n", strings.ToLower(agent.name), name, agent.extra)
	}
	owner := newDevWorld(t, c.stateDir)
	owner.useTerraform(cli)
	owner.write("main.tf", config)
	owner.destroyAtCleanup()
	owner.terraform("apply", "-auto-approve", "-input=false")

	query := fmt.Sprintf("list \"a2a_agent\" \"mine\" {\n  provider = a2a\n  config {\n    id_prefix = %q\n  }\n}\n", prefix)
	adopter, _ := adoptByQuery(t, cli, c.stateDir, provider, query, 2)

	adopter.terraform("destroy", "-auto-approve", "-input=false")
	owner.terraform("destroy", "-auto-approve", "-input=false")
	if err := c.checkNoContainers(nil); err != nil {
		t.Error(err)
	}
}
