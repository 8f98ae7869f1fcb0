//go:build linux

package provider

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// The tests here run terraform itself, with the provider launched as a
// plugin process per provider block (devWorld): they read what terraform
// prints, warnings included, which the acceptance test framework does not
// show, or declare provider blocks of different settings, which the
// framework's one in-process provider server cannot tell apart.

// providerOf declares the a2a provider with state dir dir.
func providerOf(dir string) string {
	return fmt.Sprintf("terraform {\n  required_providers {\n    a2a = { source = \"a2a-terraform/a2a\" }\n  }\n}\n\nprovider \"a2a\" {\n  state_dir = %q\n}\n", dir)
}

// printed matches what terraform printed, which it wraps at spaces: each
// space of the pattern matches any run of white space.
func printed(pattern string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)` + strings.ReplaceAll(pattern, " ", `\s+`))
}

func needTFAcc(t *testing.T) {
	t.Helper()
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skip("runs terraform; set TF_ACC=1")
	}
}

// TestAccEnvAllowlist_destroyWarnsOnlyAboutAgentsThatStay: destroying a
// configuration whose agents refer to its allowlist, by reference and by
// name, warns about nothing, since those agents are deleted first; deleting
// an allowlist that an agent of another configuration names by a literal
// string warns, naming that agent, which stays.
func TestAccEnvAllowlist_destroyWarnsOnlyAboutAgentsThatStay(t *testing.T) {
	needTFAcc(t)
	t.Setenv("A2A_ACC_STAY_GREETING", "hello")
	stateDir := t.TempDir()
	owner, other := newDevWorld(t, stateDir), newDevWorld(t, stateDir)
	owner.write("main.tf", providerOf(stateDir)+`
resource "a2a_env_allowlist" "shared" {
  name      = "acc-stay"
  variables = ["A2A_ACC_STAY_GREETING"]
}

resource "a2a_agent" "by_reference" {
  env_allowlist = a2a_env_allowlist.shared.reference
  config        = "[agent]\nname = \"Acc Stay Reference\"\ndescription = \"$${A2A_ACC_STAY_GREETING}\"\n"
}

resource "a2a_agent" "by_name" {
  env_allowlist = a2a_env_allowlist.shared.name
  config        = "[agent]\nname = \"Acc Stay Name\"\ndescription = \"$${A2A_ACC_STAY_GREETING}\"\n"
}
`)
	other.write("main.tf", providerOf(stateDir)+`
resource "a2a_agent" "elsewhere" {
  env_allowlist = "acc-stay"
  config        = "[agent]\nname = \"Acc Stay Elsewhere\"\ndescription = \"$${A2A_ACC_STAY_GREETING}\"\n"
}
`)
	owner.destroyAtCleanup()
	other.destroyAtCleanup()

	owner.terraform("apply", "-auto-approve", "-input=false")
	if out := owner.terraform("destroy", "-auto-approve", "-input=false"); strings.Contains(out, "still name") {
		t.Errorf("destroying the agents with their allowlist warns about agents naming it:\n%s", out)
	}

	owner.terraform("apply", "-auto-approve", "-input=false")
	other.terraform("apply", "-auto-approve", "-input=false")
	out := owner.terraform("destroy", "-auto-approve", "-input=false")
	want := printed(`Warning: Agent acc-stay-elsewhere still names the deleted env allowlist acc-stay.*` +
		`Env allowlist "acc-stay" is deleted, but agent acc-stay-elsewhere, which stays, names it in env_allowlist. It keeps`)
	if !want.MatchString(out) || strings.Count(out, "still name") != 1 {
		t.Errorf("destroying the allowlist another configuration's agent names does not warn about that agent alone:\n%s", out)
	}
	other.terraform("destroy", "-auto-approve", "-input=false")
}

// TestAccAgent_escapedReferenceWarned: a config read with file() that
// writes Terraform's heredoc escape, $${VAR}, plans with a warning naming
// where and what to write instead; the same escape in a heredoc, which
// Terraform takes away, warns about nothing.
func TestAccAgent_escapedReferenceWarned(t *testing.T) {
	needTFAcc(t)
	stateDir := t.TempDir()
	w := newDevWorld(t, stateDir)
	w.write("agent.toml", "[agent]\nname = \"Acc Escaped\"\ndescription = \"$${GREETING:-hi} from a file\"\n")
	w.write("main.tf", providerOf(stateDir)+`
resource "a2a_env_allowlist" "greeting" {
  name      = "acc-escaped"
  variables = ["GREETING"]
}

resource "a2a_agent" "from_file" {
  env_allowlist = a2a_env_allowlist.greeting.reference
  config        = file("${path.module}/agent.toml")
}

resource "a2a_agent" "inline" {
  env_allowlist = a2a_env_allowlist.greeting.reference
  config        = <<-EOT
    [agent]
    name        = "Acc Inline"
    description = "$${GREETING:-hi} inline"
  EOT
}
`)
	out := w.terraform("plan", "-input=false")
	want := printed(`Warning: Agent config writes a reference as \$\$\{VAR\}.*with a2a_agent.from_file.*` +
		`agent config line 3, column 16: \$\$\{GREETING:-hi\}.*in a config read with file\(\), which Terraform does not interpolate, write \$\{GREETING:-hi\}`)
	if !want.MatchString(out) || strings.Count(out, "writes a reference as") != 1 {
		t.Errorf("the plan does not warn about the escaped reference of the file, and only about it:\n%s", out)
	}
}

// TestAccAgent_configKnownAtApply: a config that interpolates another new
// agent's endpoint is known only at apply. The plan says so; apply checks
// it before it creates that agent, so a mistake in it (a key [agent] does
// not take) leaves nothing of it, and `terraform destroy -refresh=false`
// removes the rest while the mistake stands. Fixing the other agent's port
// makes the config known at plan, which then reports the mistake before
// anything runs.
func TestAccAgent_configKnownAtApply(t *testing.T) {
	needTFAcc(t)
	stateDir := t.TempDir()
	w := newDevWorld(t, stateDir)
	w.destroyAtCleanup()
	declare := func(server string) {
		w.write("main.tf", providerOf(stateDir)+fmt.Sprintf(`
resource "a2a_agent" "upstream" {
  config = "[agent]\nname = \"Acc Upstream\"\n%s"
}

resource "a2a_agent" "caller" {
  config = <<-EOT
    [agent]
    name        = "Acc Caller"
    summary     = "Calls ${a2a_agent.upstream.endpoint}"
  EOT
}
`, server))
	}
	acc := &accTest{t: t, stateDir: stateDir}

	declare("")
	plan := w.terraform("plan", "-input=false")
	if !printed(`Warning: Agent config known only at apply, and checked then.*with a2a_agent.caller`).MatchString(plan) || !strings.Contains(plan, "Plan: 2 to add") {
		t.Errorf("the plan does not say the caller's config is checked only at apply:\n%s", plan)
	}
	out, code := w.run("apply", "-auto-approve", "-input=false")
	if code == 0 || !printed(`Error: Invalid agent config.*agent config line 3, column 1: unknown key "agent.summary"`).MatchString(out) {
		t.Fatalf("apply of the caller's unknown key: exit %d, want it refused naming the key:\n%s", code, out)
	}
	agents, err := acc.listAgents()
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != 1 || agents[0].ID != "acc-upstream" {
		t.Errorf("after the refused apply the runtime records %v, want the upstream agent alone", agents)
	}
	if out, code := w.run("destroy", "-auto-approve", "-input=false", "-refresh=false"); code != 0 {
		t.Fatalf("terraform destroy -refresh=false with the unknown key standing failed (exit %d):\n%s", code, out)
	}
	if err := acc.checkNoAgents(nil); err != nil {
		t.Error(err)
	}

	declare(`[server]\nhttp_port = ` + fmt.Sprint(freeLoopbackPort(t)) + `\n`)
	out, code = w.run("plan", "-input=false")
	if code == 0 || !printed(`Error: Invalid agent config.*unknown key "agent.summary"`).MatchString(out) || strings.Contains(out, "known only at apply") {
		t.Errorf("with the upstream's port fixed, the plan does not report the caller's unknown key: exit %d\n%s", code, out)
	}
}

// TestAccAgent_allowlistOfAnotherStateDir: an allowlist is kept in the
// state dir of the provider that declares it, and an agent reads those of
// its own provider's state dir. An agent of an aliased provider with a
// state dir of its own that refers to the default provider's allowlist by
// reference is refused at plan, naming the state dir it reads, whether the
// allowlist exists already or is planned with it; by name, which carries
// no state dir, it is refused at apply, saying the same. Two provider
// blocks sharing the state dir share its allowlists.
func TestAccAgent_allowlistOfAnotherStateDir(t *testing.T) {
	needTFAcc(t)
	t.Setenv("A2A_ACC_ELSEWHERE", "hello")
	stateDir, otherDir := t.TempDir(), t.TempDir()
	w := newDevWorld(t, stateDir)
	w.destroyAtCleanup()
	allowlist := providerOf(stateDir) + `
resource "a2a_env_allowlist" "test" {
  name      = "acc-elsewhere"
  variables = ["A2A_ACC_ELSEWHERE"]
}
`
	declare := func(agentStateDir, refersBy string) {
		w.write("main.tf", allowlist+fmt.Sprintf(`
provider "a2a" {
  alias     = "other"
  state_dir = %q
}

resource "a2a_agent" "test" {
  provider      = a2a.other
  env_allowlist = a2a_env_allowlist.test.%s
  config        = "[agent]\nname = \"Acc Elsewhere\"\ndescription = \"$${A2A_ACC_ELSEWHERE}\"\n"
}
`, agentStateDir, refersBy))
	}
	notThere := printed(regexp.QuoteMeta("The state dir of this agent's provider, "+otherDir+`, has no env allowlist named "acc-elsewhere".`) +
		` An agent reads env allowlists from its own provider's state dir only`)
	refused := func(cmd, summary string) {
		t.Helper()
		out, code := w.run(cmd, "-auto-approve", "-input=false")
		if cmd == "plan" {
			out, code = w.run(cmd, "-input=false")
		}
		if code == 0 || !strings.Contains(out, "Error: "+summary) || !notThere.MatchString(out) {
			t.Errorf("terraform %s: exit %d, want %q naming the state dir it reads:\n%s", cmd, code, summary, out)
		}
	}

	declare(otherDir, "reference")
	refused("plan", "Env allowlist kept in another state dir")
	w.write("main.tf", allowlist)
	w.terraform("apply", "-auto-approve", "-input=false")
	declare(otherDir, "reference")
	refused("plan", "Env allowlist kept in another state dir")
	declare(otherDir, "name")
	refused("apply", "Env allowlist not found")
	declare(stateDir, "reference")
	w.terraform("apply", "-auto-approve", "-input=false")
	if out := w.terraform("state", "show", "a2a_agent.test"); !strings.Contains(out, `"A2A_ACC_ELSEWHERE"`) {
		t.Errorf("the agent of a provider sharing the allowlist's state dir does not receive its variable:\n%s", out)
	}
	w.terraform("destroy", "-auto-approve", "-input=false")
}
