//go:build linux

package provider

import (
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// examplesRoot holds the configurations users copy first.
var examplesRoot = filepath.Join("..", "..", "examples")

// exampleRun is one example applied in a copy of its directory.
type exampleRun struct{ *devWorld }

// output is the raw value of a string output.
func (r *exampleRun) output(name string) string {
	r.t.Helper()
	return r.terraform("output", "-raw", name)
}

// shell runs a command an example prints for its user, as they would.
func (r *exampleRun) shell(command string, extraEnv ...string) string {
	r.t.Helper()
	cmd := exec.CommandContext(r.t.Context(), "sh", "-c", command)
	cmd.Env = append(slices.Clone(r.env), extraEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("%s: %v\n%s", command, err, out)
	}
	return string(out)
}

// exampleCase is what an example's header says it needs, met by the test,
// and what proves it works beyond its apply.
type exampleCase struct {
	// needs supplies what the example needs: files in its directory, and
	// the environment of terraform it returns.
	needs func(t *testing.T, dir string) []string
	check func(r *exampleRun)
}

// TestAccExamples applies every example directory on its own, as a user
// would: a copy of it, run with the provider (this test binary) through
// dev_overrides and no terraform init, with what its header says it needs
// supplied by the test. The plan after the apply must be empty, each
// import.sh must adopt what it names with an empty plan after it, so must
// its import-by-identity.tf.example (with the newer Terraform CLI, which knows
// identity), and destroy must leave nothing in the state dir.
func TestAccExamples(t *testing.T) {
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skip("applies every example with terraform; set TF_ACC=1")
	}
	examples := map[string]exampleCase{
		"provider":                    {},
		"quickstart":                  {check: quickstartTalks},
		"bring-your-own":              {needs: sdkTool},
		"resources/a2a_agent":         {needs: modelServer, check: assistantAnswers},
		"resources/a2a_env_allowlist": {},
		"data-sources/a2a_agent_card": {check: externalAgentRead},
		"list-resources/a2a_agent":    {needs: newerCLI, check: agentsListed},
		"functions/agent_id":          {check: agentIDsSpelled},
		"actions/a2a_message":         {needs: greeterToken, check: messageAnswered},
		"actions/a2a_agent_restart":   {needs: greeterToken, check: greeterRestarted},
		"jwt-auth":                    {check: jwtCallersOnly},
		"telemetry":                   {needs: metricsPort, check: metricsScraped},
	}
	for _, dir := range exampleDirs(t) {
		_, here := examples[dir]
		_, onCluster := kubeExamples[dir]
		if !here && !onCluster {
			t.Errorf("example %s is not applied by this test nor by TestAccKubeExamples: add it, with what it needs", dir)
		}
	}
	for dir, ex := range examples {
		t.Run(dir, func(t *testing.T) { applyExample(t, dir, ex) })
	}
}

// exampleDirs lists, relative to examplesRoot, every directory holding a
// Terraform configuration.
func exampleDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(examplesRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".tf" {
			return err
		}
		rel, _ := filepath.Rel(examplesRoot, filepath.Dir(p))
		if !slices.Contains(dirs, rel) {
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

func applyExample(t *testing.T, dir string, ex exampleCase) {
	stateDir := t.TempDir()
	r := &exampleRun{newDevWorld(t, stateDir)}
	if err := os.CopyFS(r.dir, os.DirFS(filepath.Join(examplesRoot, dir))); err != nil {
		t.Fatal(err)
	}
	// Terraform leaves the file alone: it is applied apart, once the
	// example runs.
	identityImportConfig, err := os.ReadFile(filepath.Join(r.dir, identityImportFile))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if ex.needs != nil {
		r.env = append(r.env, ex.needs(t, r.dir)...)
	}
	r.destroyAtCleanup()

	r.terraform("apply", "-auto-approve", "-input=false")
	r.emptyPlan("after apply")
	if ex.check != nil {
		ex.check(r)
	}
	for _, imp := range importCommands(t, r.dir) {
		r.terraform("state", "rm", imp[0])
		r.terraform("import", "-input=false", imp[0], imp[1])
		r.emptyPlan("after terraform import " + strings.Join(imp, " "))
	}
	if identityImportConfig != nil {
		r.importByIdentity(string(identityImportConfig))
	}
	r.terraform("destroy", "-auto-approve", "-input=false")
	if left, err := statedirtest.Leftovers(stateDir); err != nil || len(left) > 0 {
		t.Errorf("destroy left %v in the state dir (%v)", left, err)
	}
}

// identityImportFile is where an example shows an import block by
// identity: a name Terraform does not load, so that the example's folder
// applies on its own, and the resource templates show it in the docs.
// identityImportApplied is the name it is applied under.
const (
	identityImportFile    = "import-by-identity.tf.example"
	identityImportApplied = "import-by-identity.tf"
)

// importByIdentity makes Terraform forget what the import block config
// adopts, then applies it with the newer Terraform CLI, which must import
// it and change nothing, the plan after it empty; the example runs on with
// that CLI.
func (r *exampleRun) importByIdentity(config string) {
	r.t.Helper()
	to := regexp.MustCompile(`(?m)^\s*to\s*=\s*(\S+)`).FindStringSubmatch(config)
	if to == nil {
		r.t.Fatalf("%s has no import block with a to address:\n%s", identityImportFile, config)
	}
	cli, ok := newerTerraformIfAny(r.t)
	if !ok {
		return
	}
	r.useTerraform(cli)
	r.terraform("state", "rm", to[1])
	r.write(identityImportApplied, config)
	if out := r.terraform("apply", "-auto-approve", "-input=false"); !printed("1 imported, 0 added, 0 changed, 0 destroyed").MatchString(out) {
		r.t.Errorf("the apply of %s did more than import %s:\n%s", identityImportFile, to[1], out)
	}
	r.emptyPlan("after the import block of " + identityImportFile)
	removeFile(r.t, filepath.Join(r.dir, identityImportApplied))
}

// emptyPlan fails the test unless the plan proposes no change.
func (r *exampleRun) emptyPlan(when string) {
	r.t.Helper()
	if out, code := r.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		r.t.Errorf("the plan %s is not empty (exit %d):\n%s", when, code, out)
	}
}

// importCommands reads the address and id of each `terraform import` line
// of the example's import.sh.
func importCommands(t *testing.T, dir string) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "import.sh"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "terraform" && f[1] == "import" {
			cmds = append(cmds, f[2:])
		}
	}
	if len(cmds) == 0 {
		t.Fatalf("%s/import.sh holds no terraform import command", dir)
	}
	return cmds
}

// quickstartTalks runs the commands the quickstart prints for talking to
// its agents, as its user would: curl, and the A2A SDK's a2a tool.
func quickstartTalks(r *exampleRun) {
	needCurl(r.t)
	if out := r.shell(r.output("send_message_curl")); !strings.Contains(out, `"text":"Hi there"`) || !strings.Contains(out, "TASK_STATE_COMPLETED") {
		r.t.Errorf("the greeter answered the quickstart's curl with %s, want a completed task echoing Hi there", out)
	}
	tools := filepath.Dir(a2acli.Binary(r.t))
	if out := r.shell(r.output("send_message_a2a"), "PATH="+tools+":"+os.Getenv("PATH")); !strings.Contains(out, "Hi there") || !strings.Contains(out, "completed") {
		r.t.Errorf("the echo agent answered the quickstart's a2a send with %s, want a completed task echoing Hi there", out)
	}
}

// agentIDsSpelled checks the ids the agent_id example's comments promise.
func agentIDsSpelled(r *exampleRun) {
	for output, want := range map[string]string{"billing_agent_id": "billing-agent", "cafe_agent_id": "cafe-agent-eu"} {
		if got := r.output(output); got != want {
			r.t.Errorf("output %s is %q, want %q", output, got, want)
		}
	}
}

// greeterToken runs an action example on the newer Terraform CLI, which
// knows actions, and gives it its token, as a variable and in the
// environment.
func greeterToken(t *testing.T, _ string) []string {
	cli := newerTerraform(t)
	return []string{"PATH=" + filepath.Dir(cli) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"TF_VAR_greeter_token=example-greeter-token", "GREETER_TOKEN=example-greeter-token"}
}

// greeterRestarted rotates the restart example's token and invokes its
// action, as its header says.
func greeterRestarted(r *exampleRun) {
	r.env = append(r.env, "GREETER_TOKEN=example-greeter-token-rotated")
	out := r.terraform("apply", "-auto-approve", "-input=false", "-invoke=action.a2a_agent_restart.greeter")
	if !printed("Agent greeter is healthy again").MatchString(out) {
		r.t.Errorf("terraform apply -invoke does not show the agent restarted:\n%s", out)
	}
}

// messageAnswered invokes the action example's smoke test on its own, as
// its header says, and checks that the agent answered.
func messageAnswered(r *exampleRun) {
	out := r.terraform("apply", "-auto-approve", "-input=false", "-invoke=action.a2a_message.smoke")
	if !printed("The agent answered with task .*, completed: ping").MatchString(out) {
		r.t.Errorf("terraform apply -invoke does not show the agent's reply:\n%s", out)
	}
	tools := filepath.Dir(a2acli.Binary(r.t))
	if out := r.shell(r.output("send_message_a2a"), "PATH="+tools+":"+os.Getenv("PATH")); !strings.Contains(out, "Hi there") || !strings.Contains(out, "completed") {
		r.t.Errorf("the greeter answered the example's a2a send with %s, want a completed task echoing Hi there", out)
	}
}

// sdkTool gives the bring-your-own example the A2A SDK's a2a tool, and
// checks that the port its card names is free.
func sdkTool(t *testing.T, _ string) []string {
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:9301")
	if err != nil {
		t.Fatalf("the bring-your-own example needs port 9301, which its card names, and it is taken: %v", err)
	}
	_ = l.Close()
	return []string{"TF_VAR_a2a_tool=" + a2acli.Binary(t)}
}

// The model server's answer, and the values the a2a_agent example needs.
const (
	modelAnswer    = "A2A lets agents talk to each other."
	modelKey       = "example-model-key"
	assistantToken = "example-assistant-token"
)

// modelServer gives the a2a_agent example an OpenAI-compatible
// chat-completions endpoint, its key and the assistant's bearer token.
func modelServer(t *testing.T, _ string) []string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/chat/completions" || r.Header.Get("Authorization") != "Bearer "+modelKey {
			http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": modelAnswer}}},
		})
	}))
	t.Cleanup(srv.Close)
	return []string{"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=" + modelKey, "TF_VAR_assistant_token=" + assistantToken}
}

// assistantAnswers asks the a2a_agent example's assistant a question with
// its bearer token, in an A2A 1.0 SendMessage request sent with curl.
func assistantAnswers(r *exampleRun) {
	needCurl(r.t)
	endpoint := strings.TrimSuffix(r.output("assistant_card_url"), card.WellKnownPath)
	request := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"q1","parts":[{"text":"What is A2A?"}]}}}`
	out := r.shell("curl -s -H 'Authorization: Bearer " + assistantToken + "' -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' -d '" +
		request + "' " + endpoint)
	if !strings.Contains(out, modelAnswer) {
		r.t.Errorf("the assistant answered %s, want the model's answer %q", out, modelAnswer)
	}
}

// externalAgentRead applies the a2a_agent_card example's configuration
// for an agent that runs elsewhere, kept beside it in a file Terraform does
// not load, with what its header says it needs: the planner's card must be
// read, its signature verified.
func externalAgentRead(r *exampleRun) {
	r.t.Helper()
	const snippet = "external-agent.tf.example"
	config, err := os.ReadFile(filepath.Join(r.dir, snippet))
	if err != nil {
		r.t.Fatal(err)
	}
	r.env = append(r.env, plannerAgent(r.t, r.dir)...)
	r.write("external-agent.tf", string(config))
	r.terraform("apply", "-auto-approve", "-input=false")
	if got := r.terraform("output", "-json", "planner_skills"); !strings.Contains(got, `"plan`) {
		r.t.Errorf("the planner's skills read %q from its signed card", got)
	}
	removeFile(r.t, filepath.Join(r.dir, "external-agent.tf"))
}

// newerCLI runs an example on the newer Terraform CLI, which knows
// terraform query.
func newerCLI(t *testing.T, _ string) []string {
	return []string{"PATH=" + filepath.Dir(newerTerraform(t)) + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// agentsListed runs the list example's query, as its header says, once
// an agent is in its runtime: the query lists it.
func agentsListed(r *exampleRun) {
	r.t.Helper()
	r.write("agent.tf", "resource \"a2a_agent\" \"listed\" {\n  config = \"[agent]\\nname = \\\"Listed Example\\\"\\n\"\n}\n")
	r.terraform("apply", "-auto-approve", "-input=false")
	if out := r.terraform("query"); !strings.Contains(out, "listed-example") {
		r.t.Errorf("terraform query of the example does not list the agent listed-example:\n%s", out)
	}
	removeFile(r.t, filepath.Join(r.dir, "agent.tf"))
	r.terraform("apply", "-auto-approve", "-input=false")
}

// plannerAgent gives the a2a_agent_card example's external agent its
// planner: an agent whose card is signed, served only with the
// Authorization header the example reads from PLANNER_AUTHORIZATION, and
// the signing key's public half next to the example.
func plannerAgent(t *testing.T, dir string) []string {
	key := newSigningKey(t)
	signed := signedCard10(t, key, "planner-1")
	const authorization = "Bearer example-planner-token"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != authorization {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		serveJSON(signed)(w, r, 0)
	}))
	t.Cleanup(srv.Close)
	writeFile(t, filepath.Join(dir, "planner-signing-key.pub.pem"), string(key.publicPEM))
	return []string{"TF_VAR_planner_url=" + srv.URL, "PLANNER_AUTHORIZATION=" + authorization}
}

// needCurl skips the test, or fails it in CI, when curl, which the
// commands an example prints for its user run, is not on PATH.
func needCurl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		missing(t, "A2A_REQUIRE_TOOLS", "the example's commands run curl, which is not on PATH (Debian: curl): %v", err)
	}
}
