//go:build linux

package provider

import (
	"os"
	"testing"
)

// messageWorld is a world on the newer Terraform CLI whose configuration
// runs a bearer-protected agent and sends it a message after each create or
// update, through a2a_message in an action_trigger, with the headers given.
func messageWorld(t *testing.T, headers string) *devWorld {
	t.Helper()
	cli := newerTerraform(t)
	stateDir := t.TempDir()
	t.Setenv("MSG_TOKEN", "s3cret-token")
	w := newDevWorld(t, stateDir)
	w.useTerraform(cli)
	w.write("main.tf", providerOf(stateDir)+`
variable "token" {
  type      = string
  sensitive = true
  default   = "s3cret-token"
}

resource "a2a_env_allowlist" "msg" {
  name      = "msg-token"
  variables = ["MSG_TOKEN"]
}

resource "a2a_agent" "echo" {
  config = <<-EOT
    [agent]
    name = "Message Echo"
    [auth]
    bearer_token = "$${MSG_TOKEN}"
  EOT
  env_allowlist = a2a_env_allowlist.msg.reference
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.a2a_message.smoke]
    }
  }
}

action "a2a_message" "smoke" {
  config {
    url     = a2a_agent.echo.endpoint
    text    = "ping from terraform"
    `+headers+`
    timeout = "20s"
  }
}
`)
	w.destroyAtCleanup()
	return w
}

// TestAccMessageAction_smokeTest: an apply that creates an agent sends it
// a message through the action it triggers and shows the agent's reply;
// terraform apply -invoke sends it again on its own, and a token never
// reaches what Terraform prints or keeps.
func TestAccMessageAction_smokeTest(t *testing.T) {
	requireAcc(t)
	w := messageWorld(t, `headers = { Authorization = "Bearer ${var.token}" }`)
	applied := w.terraform("apply", "-auto-approve", "-input=false")
	for _, want := range []string{`Sending a message to http://`, `The agent answered`, `ping from terraform`} {
		if !printed(want).MatchString(applied) {
			t.Errorf("the apply does not show %q:\n%s", want, applied)
		}
	}
	invoked := w.terraform("apply", "-auto-approve", "-input=false", "-invoke=action.a2a_message.smoke")
	if !printed(`The agent answered`).MatchString(invoked) {
		t.Errorf("terraform apply -invoke does not show the reply:\n%s", invoked)
	}
	for _, out := range []string{applied, invoked, string(readFile(t, w.dir+"/terraform.tfstate"))} {
		if printed("s3cret-token").MatchString(out) {
			t.Errorf("the bearer token reached Terraform's output or state:\n%s", out)
		}
	}
}

// TestAccMessageAction_refusedFailsApply: an agent that refuses the
// message (its bearer token missing) fails the apply that created it,
// saying it refused and that the message was not sent again.
func TestAccMessageAction_refusedFailsApply(t *testing.T) {
	requireAcc(t)
	w := messageWorld(t, "")
	out, code := w.run("apply", "-auto-approve", "-input=false")
	if code == 0 {
		t.Fatalf("the apply succeeded though the agent refused the message:\n%s", out)
	}
	for _, want := range []string{`The agent refused the message`, `401`, `not sent again`} {
		if !printed(want).MatchString(out) {
			t.Errorf("the failed apply does not say %q:\n%s", want, out)
		}
	}
}

// TestAccMessageAction_literalCredentialRefused: a credential header
// written literally, which Terraform would print in terraform plan -invoke
// and in the apply that sends it (an action's arguments cannot be
// sensitive), is refused when the configuration is validated, naming the
// header, before anything runs; a literal header that is no credential
// passes.
func TestAccMessageAction_literalCredentialRefused(t *testing.T) {
	requireAcc(t)
	w := messageWorld(t, `headers = { "X-Trace" = "literal-is-fine", Authorization = "Bearer s3cret-token" }`)
	for _, args := range [][]string{{"validate"}, {"plan", "-input=false", "-invoke=action.a2a_message.smoke"}} {
		out, code := w.run(args...)
		if code == 0 {
			t.Fatalf("terraform %s accepted a literal Authorization header:\n%s", args[0], out)
		}
		for _, want := range []string{`Credential written literally`, `The Authorization header holds a credential`, `sensitive variable`} {
			if !printed(want).MatchString(out) {
				t.Errorf("terraform %s does not say %q:\n%s", args[0], want, out)
			}
		}
		if printed("X-Trace header").MatchString(out) {
			t.Errorf("terraform %s refused a literal header that is no credential:\n%s", args[0], out)
		}
	}
	if _, err := os.Stat(w.dir + "/terraform.tfstate"); err == nil {
		t.Errorf("a state was written though the configuration was refused")
	}
}
