package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

// accTest is one acceptance test's private world: its own state dir, its
// own terraform working dirs, and the agent processes it saw.
type accTest struct {
	t        *testing.T
	stateDir string
	workDir  string
	// mu guards pids, recorded into by terraform runs that go on at once.
	mu   sync.Mutex
	pids map[int]bool
	// adapterBlock is the provider block's adapter block; empty selects
	// the local adapter by default.
	adapterBlock string
}

// requireTerraform fails the test when the terraform binary is not on PATH:
// the test framework would otherwise try to download it.
func requireTerraform(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Fatalf("this test runs the terraform binary, which is not on PATH: %v", err)
	}
}

// missing skips the test for lack of a part, or fails it where require
// names a variable set to 1, as CI sets A2A_REQUIRE_ENGINE and the like.
func missing(t *testing.T, require, format string, args ...any) {
	t.Helper()
	if os.Getenv(require) == "1" {
		t.Fatalf(require+"=1 but "+format, args...)
	}
	t.Skipf(format+" (set "+require+"=1 to fail instead)", args...)
}

// unitTest runs tc with the real terraform binary whether or not TF_ACC is
// set, failing clearly when terraform is missing.
func unitTest(t *testing.T, tc resource.TestCase) {
	t.Helper()
	requireTerraform(t)
	resource.UnitTest(t, tc)
}

// newAccTest fails rather than skips when terraform is missing under TF_ACC.
func newAccTest(t *testing.T) *accTest {
	t.Helper()
	if os.Getenv(resource.EnvTfAcc) != "" {
		requireTerraform(t)
	}
	work := t.TempDir()
	// Terraform's working dirs (and so its state files) land here, where
	// the secret checks can read them.
	t.Setenv("TF_ACC_TEMP_DIR", work)
	return &accTest{t: t, stateDir: t.TempDir(), workDir: work, pids: map[int]bool{}}
}

// provider is the provider block every config of the test starts with.
func (a *accTest) provider() string {
	return fmt.Sprintf("provider \"a2a\" {\n  state_dir = %q\n%s}\n", a.stateDir, a.adapterBlock)
}

// agent renders an a2a_agent resource named "test" with the given TOML
// config and extra attribute lines. Terraform interpolation in the TOML
// must already be escaped as $${...}.
func (a *accTest) agent(toml string, extra ...string) string {
	return a.provider() + fmt.Sprintf("resource \"a2a_agent\" \"test\" {\n  config = <<-EOT\n%s\n  EOT\n%s\n}\n",
		indent(toml), strings.Join(extra, "\n"))
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = "    " + strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}

// brokenAgent declares an agent that passes every plan-time check but whose
// host exits at start: its bearer token is the allowlisted variable empty,
// which this method sets so in the test's environment (an empty token would
// turn authentication off, so the host refuses it). It returns that
// declaration, and the allowlist alone for steps that fix the agent.
func (a *accTest) brokenAgent(name, empty, allowlistName, createTimeout string) (broken, allowlist string) {
	a.t.Setenv(empty, "")
	broken = a.agentAllowing(fmt.Sprintf("[agent]\nname = %q\n[auth]\nbearer_token = \"$${%s}\"\n", name, empty), allowlistName, empty,
		fmt.Sprintf("  timeouts {\n    create = %q\n  }", createTimeout))
	return broken, allowlistResource(allowlistName, empty)
}

// agentAllowing is agent with an env allowlist of its own, a2a_env_allowlist.test
// named allowlistName, that allows variable.
func (a *accTest) agentAllowing(toml, allowlistName, variable string, extra ...string) string {
	return a.agent(toml, append(extra, "  env_allowlist = a2a_env_allowlist.test.name")...) + allowlistResource(allowlistName, variable)
}

// allowlistResource declares a2a_env_allowlist.test, named name, allowing
// variable.
func allowlistResource(name, variable string) string {
	return fmt.Sprintf(`
resource "a2a_env_allowlist" "test" {
  name      = %q
  variables = [%q]
}
`, name, variable)
}

// echoConfig is a minimal agent config.
func echoConfig(name, description string) string {
	return fmt.Sprintf("[agent]\nname = %q\ndescription = %q\n", name, description)
}

// recordPID remembers the agent's process so CheckDestroy can prove it gone.
func (a *accTest) recordPID() resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
		pid, err := strconv.Atoi(v)
		if err != nil || pid <= 0 {
			return fmt.Errorf("instance %q is not a pid", v)
		}
		if processGone(pid) {
			return fmt.Errorf("agent process %d is not running", pid)
		}
		a.rememberPID(pid)
		return nil
	})
}

func (a *accTest) rememberPID(pid int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pids[pid] = true
}

// seenPIDs returns every agent process recorded so far.
func (a *accTest) seenPIDs() []int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Collect(maps.Keys(a.pids))
}

// processGone reports whether pid names no live process; a zombie awaiting
// its reaper counts as gone.
func processGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
}

// checkNothingLeft is a CheckDestroy: no agent in the runtime, nothing of
// any agent left anywhere in the state dir, and every agent process seen
// during the test gone.
func (a *accTest) checkNothingLeft(s *terraform.State) error {
	if err := a.checkNoAgents(s); err != nil {
		return err
	}
	left, err := statedirtest.Leftovers(a.stateDir)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("destroy left files behind in %s: %s", a.stateDir, strings.Join(left, ", "))
	}
	for _, pid := range a.seenPIDs() {
		if !waitGone(pid) {
			return fmt.Errorf("agent process %d still runs after destroy", pid)
		}
	}
	return nil
}

// checkNoAgents passes when the runtime records no agent.
func (a *accTest) checkNoAgents(*terraform.State) error {
	agents, err := a.listAgents()
	if err != nil {
		return err
	}
	if len(agents) > 0 {
		return fmt.Errorf("the runtime still records %d agents, first %q", len(agents), agents[0].ID)
	}
	return nil
}

// listAgents lists the agents of the state dir, as a provider process of
// its own would.
func (a *accTest) listAgents() ([]agentruntime.Agent, error) { return listAgentsIn(a.t, a.stateDir) }

// listAgentsIn lists the agents the local adapter holds in stateDir.
func listAgentsIn(t *testing.T, stateDir string) ([]agentruntime.Agent, error) {
	dir, err := statedir.Open(stateDir)
	if err != nil {
		return nil, err
	}
	rt, err := local.New(localOptions(t, dir))
	if err != nil {
		return nil, err
	}
	return rt.List(context.Background())
}

// waitGone gives a stopped process a moment to be reaped.
func waitGone(pid int) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if processGone(pid) {
			return true
		}
	}
	return processGone(pid)
}

// checkCard fetches the card the agent serves and checks its description.
func checkCard(check func(description string) error) resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(agentAddr, "card_url", func(url string) error { return fetchCard(url, check) })
}

// fetchCard fetches the card at url and checks its description.
func fetchCard(url string, check func(description string) error) error {
	return fetchCardVia(http.DefaultClient, url, check)
}

// fetchCardVia is fetchCard through client, for a card reached through a
// proxy that needs credentials, such as a cluster's API server.
func fetchCardVia(client *http.Client, url string, check func(description string) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("fetch card: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetch card %s: status %s", url, resp.Status)
	}
	var card struct {
		Description string `json:"description"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
		return fmt.Errorf("decode card %s: %w", url, err)
	}
	return check(card.Description)
}

func descriptionIs(want string) func(string) error {
	return func(got string) error {
		if got != want {
			return fmt.Errorf("card description is %q, want %q", got, want)
		}
		return nil
	}
}

// checkNotPersisted proves secret reached neither Terraform state (as
// Terraform reports it and as its files hold it) nor any file of the state
// dir but kept, files (relative to the state dir) that must hold it. It
// first proves it can see the state files, so it cannot pass by looking
// nowhere.
func (a *accTest) checkNotPersisted(secret string, kept ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for _, m := range s.Modules {
			for name, r := range m.Resources {
				for k, v := range r.Primary.Attributes {
					if strings.Contains(v, secret) {
						return fmt.Errorf("secret value found in state at %s.%s", name, k)
					}
				}
			}
		}
		stateFiles, keptFound := 0, 0
		for _, root := range []string{a.workDir, a.stateDir} {
			err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
					return err
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if strings.HasSuffix(p, ".tfstate") && bytes.Contains(data, []byte(`"a2a_`)) {
					stateFiles++
				}
				rel, _ := filepath.Rel(a.stateDir, p)
				if slices.Contains(kept, rel) {
					if !bytes.Contains(data, []byte(secret)) {
						return fmt.Errorf("%s does not hold the secret value", p)
					}
					keptFound++
					return nil
				}
				if bytes.Contains(data, []byte(secret)) {
					return fmt.Errorf("secret value found in %s", p)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if stateFiles == 0 {
			return fmt.Errorf("found no terraform state file holding an a2a resource or data source under %s", a.workDir)
		}
		if keptFound != len(kept) {
			return fmt.Errorf("found %d of the files %v that must hold the secret value in %s", keptFound, kept, a.stateDir)
		}
		return nil
	}
}

// failedCreateSteps applies config, expecting the create to fail with want,
// then proves nothing of the agent was kept: leftNothing passes right after
// the failed apply, and the next plan creates the agent afresh instead of
// replacing a tainted one.
func failedCreateSteps(t *testing.T, config, want string, leftNothing resource.TestCheckFunc) []resource.TestStep {
	return []resource.TestStep{
		{Config: config, ExpectError: regexp.MustCompile(want)},
		{
			PreConfig: func() {
				if err := leftNothing(nil); err != nil {
					t.Fatalf("after the failed create: %v", err)
				}
			},
			Config:             config,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionCreate),
			}},
		},
	}
}
