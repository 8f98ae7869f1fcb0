package provider

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// cliRun is one terraform command against a provider served from this test
// process, as a fresh provider process would serve it, with Terraform's
// trace log and the provider's log each in a file.
type cliRun struct {
	t       *testing.T
	dir     string
	coreLog string
}

// terraform runs terraform with args in the run's directory and returns
// what it printed, plan output and diagnostics included.
func (c *cliRun) terraform(args ...string) (string, error) {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- tf6server.Serve("registry.terraform.io/hashicorp/a2a", providerserver.NewProtocol6(New(hostbuild.Release)()),
			tf6server.WithDebug(ctx, reattach, closed),
			tf6server.WithLoggingSink(c.t),
			tf6server.WithGoPluginLogger(hclog.New(&hclog.LoggerOptions{Output: io.Discard})))
	}()
	var cfg *plugin.ReattachConfig
	select {
	case cfg = <-reattach:
	case err := <-served:
		c.t.Fatalf("serve the provider: %v", err)
	}
	info, err := json.Marshal(map[string]any{"registry.terraform.io/hashicorp/a2a": map[string]any{
		"Protocol": string(cfg.Protocol), "ProtocolVersion": cfg.ProtocolVersion, "Pid": cfg.Pid, "Test": true,
		"Addr": map[string]string{"Network": cfg.Addr.Network(), "String": cfg.Addr.String()},
	}})
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "terraform", args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "TF_REATTACH_PROVIDERS="+string(info), "TF_LOG=trace", "TF_LOG_PATH="+c.coreLog,
		"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	out, err := cmd.CombinedOutput()
	cancel()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		c.t.Error("the provider server did not stop")
	}
	return string(out), err
}

// TestAccAgent_writeOnlyThroughCLI gives an agent a write-only value from
// an ephemeral variable set with -var, through the terraform CLI itself,
// and searches everything terraform printed (plans, diagnostics), its
// trace log, the provider's log, the state file and the state dir.
func TestAccAgent_writeOnlyThroughCLI(t *testing.T) {
	requireTerraform(t)
	acc := newAccTest(t)
	providerLog := filepath.Join(t.TempDir(), "provider.log")
	t.Setenv("TF_ACC_LOG_PATH", providerLog)
	t.Setenv("TF_LOG", "TRACE")
	run := &cliRun{t: t, dir: t.TempDir(), coreLog: filepath.Join(t.TempDir(), "terraform.log")}
	const value, greeting = "wo-cli-value-b7e4f0", "wo-cli-greeting-2c81"
	write := func(description string) {
		config := acc.writeOnlyAgent("Acc Write Only CLI", description, 1)
		if err := os.WriteFile(filepath.Join(run.dir, "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	vars := []string{"-var", "token=" + value, "-var", "greeting=" + greeting}
	var printed strings.Builder
	step := func(wantErr bool, args ...string) string {
		t.Helper()
		out, err := run.terraform(args...)
		printed.WriteString(out)
		if (err != nil) != wantErr {
			t.Fatalf("terraform %s: %v (want error: %v)\n%s", strings.Join(args, " "), err, wantErr, out)
		}
		return out
	}
	destroyed := false
	t.Cleanup(func() {
		if !destroyed {
			_, _ = run.terraform(append([]string{"destroy", "-auto-approve"}, vars...)...)
		}
	})

	write("$${WO_TOKEN}")
	step(false, "init", "-input=false")
	plan := step(false, append([]string{"plan", "-input=false", "-out", "agent.tfplan"}, vars...)...)
	if !strings.Contains(plan, "env_wo_version") || !strings.Contains(plan, "(write-only attribute)") {
		t.Errorf("the plan does not show the agent's write-only attribute, so searching it proves little:\n%s", plan)
	}
	step(false, append(append([]string{"apply", "-input=false"}, vars...), "agent.tfplan")...)
	state, err := os.ReadFile(filepath.Join(run.dir, "terraform.tfstate"))
	if err != nil || !strings.Contains(string(state), `"a2a_agent"`) {
		t.Fatalf("no state holding the agent: %v", err)
	}
	if strings.Contains(string(state), value) || strings.Contains(string(state), greeting) {
		t.Error("the state file holds a write-only value")
	}
	wantCardDescription(t, acc, value)

	// A refused plan: its diagnostics must not carry the value either.
	write("$${WO_TOKEN} $${A2A_CLI_NOT_ALLOWED}")
	refused := step(true, append([]string{"plan", "-input=false"}, vars...)...)
	if !strings.Contains(refused, "A2A_CLI_NOT_ALLOWED") {
		t.Errorf("the refused plan does not name the variable:\n%s", refused)
	}

	write("$${WO_TOKEN}")
	step(false, append([]string{"destroy", "-auto-approve", "-input=false"}, vars...)...)
	destroyed = true
	if left, err := statedirtest.Leftovers(acc.stateDir); err != nil || len(left) > 0 {
		t.Errorf("destroy left %v in the state dir (%v)", left, err)
	}

	for _, v := range []string{value, greeting} {
		if strings.Contains(printed.String(), v) {
			t.Errorf("terraform printed a write-only value:\n%s", printed.String())
		}
	}
	for _, log := range []struct{ path, mark string }{{run.coreLog, "PlanResourceChange"}, {providerLog, "provisioned agent"}} {
		data, err := os.ReadFile(log.path)
		if err != nil || !strings.Contains(string(data), log.mark) {
			t.Fatalf("log %s lacks %q (%v), so searching it proves nothing", log.path, log.mark, err)
		}
		// Terraform logs its own command line, -var values and all: that
		// line is Terraform's, and the secrets guide warns of it.
		var kept []string
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.Contains(line, "CLI args: []string{") && !strings.Contains(line, "CLI command args: []string{") {
				kept = append(kept, line)
			}
		}
		data = []byte(strings.Join(kept, "\n"))
		for _, v := range []string{value, greeting} {
			if i := strings.Index(string(data), v); i >= 0 {
				t.Errorf("log %s holds a write-only value: …%s…", log.path, data[max(0, i-1500):min(len(data), i+100)])
			}
		}
	}
}

// wantCardDescription checks the description of the one agent of acc's
// state dir, as its card shows it.
func wantCardDescription(t *testing.T, acc *accTest, want string) {
	t.Helper()
	agents, err := acc.listAgents()
	if err != nil || len(agents) != 1 {
		t.Fatalf("agents in the state dir: %v, %v; want one", agents, err)
	}
	if err := fetchCard(agents[0].CardURL, descriptionIs(want)); err != nil {
		t.Error(err)
	}
}

// TestAccAgent_incompleteApplyKeepsAgent plans a config change while an
// allowlisted variable it needs is set, then applies the saved plan after
// it was unset: the apply fails naming it before it touches the running
// agent, which keeps running its old config.
func TestAccAgent_incompleteApplyKeepsAgent(t *testing.T) {
	requireTerraform(t)
	acc := newAccTest(t)
	run := &cliRun{t: t, dir: t.TempDir(), coreLog: filepath.Join(t.TempDir(), "terraform.log")}
	const variable = "A2A_ACC_GONE_AT_APPLY"
	t.Setenv(variable, "present")
	write := func(description string) {
		config := acc.agent(echoConfig("Acc Kept Agent", description), "  env_allowlist = a2a_env_allowlist.test.reference") +
			"resource \"a2a_env_allowlist\" \"test\" {\n  name = \"acc-kept\"\n  variables = [\"" + variable + "\"]\n}\n"
		if err := os.WriteFile(filepath.Join(run.dir, "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	step := func(wantErr bool, args ...string) string {
		t.Helper()
		out, err := run.terraform(args...)
		if (err != nil) != wantErr {
			t.Fatalf("terraform %s: %v (want error: %v)\n%s", strings.Join(args, " "), err, wantErr, out)
		}
		return out
	}
	// Destroy plans the configuration first, so it goes back to the one
	// applied, whose variables all have values.
	t.Cleanup(func() {
		write("first")
		if out, err := run.terraform("destroy", "-auto-approve", "-input=false"); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
		if left, err := statedirtest.Leftovers(acc.stateDir); err != nil || len(left) > 0 {
			t.Errorf("destroy left %v in the state dir (%v)", left, err)
		}
	})

	write("first")
	step(false, "init", "-input=false")
	step(false, "apply", "-auto-approve", "-input=false")
	agents, err := acc.listAgents()
	if err != nil || len(agents) != 1 || !agents[0].Running {
		t.Fatalf("agents after the first apply: %+v, %v; want one running", agents, err)
	}
	before := agents[0]

	write("second $${" + variable + "}")
	step(false, "plan", "-input=false", "-out", "change.tfplan")
	if err := os.Unsetenv(variable); err != nil {
		t.Fatal(err)
	}
	out := step(true, "apply", "-input=false", "change.tfplan")
	if !strings.Contains(out, variable) || !strings.Contains(out, "no value") {
		t.Errorf("the failed apply does not say %s has no value:\n%s", variable, out)
	}
	agents, err = acc.listAgents()
	if err != nil || len(agents) != 1 {
		t.Fatalf("agents after the failed apply: %+v, %v", agents, err)
	}
	if after := agents[0]; !after.Running || after.Instance != before.Instance {
		t.Errorf("the running agent was touched: before %+v, after %+v", before, after)
	}
	if err := fetchCard(before.CardURL, descriptionIs("first")); err != nil {
		t.Error(err)
	}
}
