package provider

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/container"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// The labels every agent container carries, as operators filter on them.
const (
	managedByLabel = "a2a.managed-by=terraform-provider-a2a"
	agentIDLabel   = "a2a.agent-id"
)

// cardDataAddr reads the card of a2a_agent.test over HTTP.
const cardDataAddr = "data.a2a_agent_card.test"

// containerAccTest is an acceptance test against the container engine. Its
// agent names carry a random suffix, so that parallel runs and leftovers of
// earlier ones never share a container name.
type containerAccTest struct {
	*accTest
	suffix string
	ids    []string
}

// newContainerAccTest selects the container adapter, and removes every
// container of the test's agents when it ends, whatever the outcome.
func newContainerAccTest(t *testing.T) *containerAccTest {
	t.Helper()
	acc := newAccTest(t)
	acc.adapterBlock = "  container {\n    stop_grace_period = \"3s\"\n  }\n"
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	c := &containerAccTest{accTest: acc, suffix: hex.EncodeToString(b)}
	if os.Getenv(resource.EnvTfAcc) != "" {
		needEngine(t)
		t.Cleanup(c.removeContainers)
	}
	return c
}

// requireEngine names the variable CI sets, under which a missing engine,
// or a missing part of the images the tests build, fails the tests.
const requireEngine = "A2A_REQUIRE_ENGINE"

var engineAnswers = sync.OnceValue(func() error {
	_, err := docker("version", "--format", "{{.Server.Version}}")
	return err
})

// needEngine skips the test, or fails it in CI, when no engine answers.
func needEngine(t *testing.T) {
	t.Helper()
	if err := engineAnswers(); err != nil {
		missing(t, requireEngine, "no container engine answers the docker CLI: %v", err)
	}
}

// docker runs the docker CLI, as an operator acting out of band would.
func docker(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return string(out), nil
}

// mustDocker is docker for PreConfig, which cannot return an error.
func (c *containerAccTest) mustDocker(args ...string) {
	if _, err := docker(args...); err != nil {
		c.t.Fatal(err)
	}
}

// agentName returns a name unique to this test run and remembers its id.
func (c *containerAccTest) agentName(base string) (name, id string) {
	name = base + " " + c.suffix
	id = agentconfig.Slug(name)
	c.ids = append(c.ids, id)
	return name, id
}

// containerName is the adapter's name for an agent's container in the
// default scope, the one the provider block uses.
func containerName(id string) string { return "a2a-" + id }

// agentWithCard also reads the agent's card through data.a2a_agent_card,
// which waits for the agent because it refers to it.
func (c *containerAccTest) agentWithCard(toml string, extra ...string) string {
	return c.agent(toml, extra...) + "\ndata \"a2a_agent_card\" \"test\" {\n  url = a2a_agent.test.card_url\n}\n"
}

// engineContainer is the part of `docker inspect` the checks read.
type engineContainer struct {
	ID     string `json:"Id"`
	Config struct {
		Image  string
		Labels map[string]string
	}
	State struct {
		Running bool
	}
	HostConfig struct {
		RestartPolicy struct{ Name string }
		Memory        int64
	}
	NetworkSettings struct {
		Ports map[string][]struct {
			HostIP   string `json:"HostIp"`
			HostPort string
		}
	}
}

// builtImages are the base images the adapter built from this test binary;
// TestMain removes them once every test is done.
var builtImages sync.Map

// inspectContainer reads an agent's container from the engine; a missing
// one is an error.
func inspectContainer(id string) (engineContainer, error) {
	out, err := docker("inspect", "--type", "container", containerName(id))
	if err != nil {
		return engineContainer{}, err
	}
	var found []engineContainer
	if err := json.Unmarshal([]byte(out), &found); err != nil {
		return engineContainer{}, fmt.Errorf("decode docker inspect %s: %w", containerName(id), err)
	}
	if len(found) != 1 {
		return engineContainer{}, fmt.Errorf("docker inspect %s: want one container, got %d", containerName(id), len(found))
	}
	builtImages.Store(found[0].Config.Image, true)
	return found[0], nil
}

// agentContainers lists every container, running or not, labelled as the
// agent's or carrying its container name.
func agentContainers(id string) ([]string, error) {
	byLabel, err := docker("ps", "-a", "-q", "--filter", "label="+managedByLabel, "--filter", "label="+agentIDLabel+"="+id)
	if err != nil {
		return nil, err
	}
	byName, err := docker("ps", "-a", "-q", "--filter", "name=^"+containerName(id)+"$")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, c := range strings.Fields(byLabel + byName) {
		seen[c] = true
	}
	ids := make([]string, 0, len(seen))
	for c := range seen {
		ids = append(ids, c)
	}
	return ids, nil
}

// checkServedByContainer proves that the agent in state is the one running
// container of its id, published on 127.0.0.1 at the agent's port.
func checkServedByContainer(id string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[agentAddr]
		if !ok {
			return fmt.Errorf("%s is not in state", agentAddr)
		}
		attrs := rs.Primary.Attributes
		c, err := inspectContainer(id)
		if err != nil {
			return err
		}
		switch {
		case attrs["instance"] != c.ID:
			return fmt.Errorf("instance is %q, want the container id %q", attrs["instance"], c.ID)
		case !c.State.Running:
			return fmt.Errorf("container %s is not running", containerName(id))
		case c.Config.Labels[agentIDLabel] != id:
			return fmt.Errorf("container %s is labelled for agent %q, want %q", containerName(id), c.Config.Labels[agentIDLabel], id)
		}
		bindings := c.NetworkSettings.Ports["8080/tcp"]
		if len(bindings) != 1 || bindings[0].HostIP != "127.0.0.1" || bindings[0].HostPort != attrs["port"] {
			return fmt.Errorf("container %s publishes %+v, want 127.0.0.1:%s", containerName(id), bindings, attrs["port"])
		}
		all, err := agentContainers(id)
		if err != nil {
			return err
		}
		if len(all) != 1 {
			return fmt.Errorf("agent %s has %d containers, want 1: %v", id, len(all), all)
		}
		return nil
	}
}

// checkNoContainers is a CheckDestroy: no container of any agent of the
// test is left on the engine.
func (c *containerAccTest) checkNoContainers(*terraform.State) error {
	for _, id := range c.ids {
		left, err := agentContainers(id)
		if err != nil {
			return err
		}
		if len(left) > 0 {
			return fmt.Errorf("destroy left containers %v of agent %s on the engine", left, id)
		}
	}
	return nil
}

// checkNothingKept passes when neither the engine nor the runtime's records
// hold any of the test's agents.
func (c *containerAccTest) checkNothingKept(s *terraform.State) error {
	if err := c.checkNoContainers(s); err != nil {
		return err
	}
	return c.checkNoAgents(s)
}

// removeContainers force-removes what a failed test may have left.
func (c *containerAccTest) removeContainers() {
	for _, id := range c.ids {
		left, err := agentContainers(id)
		if err != nil {
			c.t.Logf("cleanup of agent %s: %v", id, err)
			continue
		}
		if len(left) == 0 {
			continue
		}
		if _, err := inspectContainer(id); err != nil {
			c.t.Logf("cleanup of agent %s: %v", id, err)
		}
		if _, err := docker(append([]string{"rm", "-f"}, left...)...); err != nil {
			c.t.Logf("cleanup of agent %s: %v", id, err)
		}
	}
}

// removeBuiltImages removes the base images built from this test binary;
// one still used by a container stays.
func removeBuiltImages() {
	// Every test that ran a container agent without inspecting it built
	// this one.
	if exe, ok := hostbuild.Used(); ok && engineAnswers() == nil {
		if ref, err := container.DefaultImageRef(hostbuild.Release, exe); err == nil {
			builtImages.Store(ref, true)
		}
	}
	builtImages.Range(func(ref, _ any) bool {
		if _, err := docker("image", "inspect", ref.(string)); err != nil {
			return true // never built, or removed already
		}
		if _, err := docker("image", "rm", ref.(string)); err != nil {
			fmt.Fprintf(os.Stderr, "remove agent image: %v\n", err)
		}
		return true
	})
}

func TestAccContainerAgent_lifecycle(t *testing.T) {
	c := newContainerAccTest(t)
	name, id := c.agentName("Acc Ctr Lifecycle")
	sameID := statecheck.CompareValue(compare.ValuesSame())
	samePort := statecheck.CompareValue(compare.ValuesSame())
	newDigest := statecheck.CompareValue(compare.ValuesDiffer())
	newInstance := statecheck.CompareValue(compare.ValuesDiffer())
	trackIdentity := func() []statecheck.StateCheck {
		return []statecheck.StateCheck{
			sameID.AddStateValue(agentAddr, at("id")),
			samePort.AddStateValue(agentAddr, at("port")),
			newDigest.AddStateValue(agentAddr, at("config_sha256")),
			newInstance.AddStateValue(agentAddr, at("instance")),
		}
	}
	servesCard := func(description string) resource.TestCheckFunc {
		return resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
			checkServedByContainer(id),
			checkCard(descriptionIs(description)),
			resource.TestCheckResourceAttr(cardDataAddr, "name", name),
			resource.TestCheckResourceAttr(cardDataAddr, "description", description),
			resource.TestCheckResourceAttrPair(cardDataAddr, "card_url", agentAddr, "card_url"),
		)
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps: append([]resource.TestStep{
			{
				Config: c.agentWithCard(echoConfig(name, "first")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(agentAddr, at("id"), knownvalue.StringExact(id)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "running", "true"),
					resource.TestMatchResourceAttr(agentAddr, "endpoint", regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`)),
					resource.TestMatchResourceAttr(agentAddr, "instance", regexp.MustCompile(`^[0-9a-f]{64}$`)),
					servesCard("first"),
				),
				ConfigStateChecks: trackIdentity(),
			},
			{
				// A config change recreates the container in place: same
				// agent, same port.
				Config: c.agentWithCard(echoConfig(name, "second")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
				}},
				Check:             servesCard("second"),
				ConfigStateChecks: trackIdentity(),
			},
			{
				// A new config and a stop in one apply: the replaced
				// container never ran, yet the agent has, so it reads
				// stopped, as on every adapter, and the plan says so.
				Config: c.agent(echoConfig(name, "third"), "  running = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("stopped")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "running", "false"),
					resource.TestCheckNoResourceAttr(agentAddr, "instance"),
				),
			},
		}, importSteps(agentAddr, id)...),
	})
}

func TestAccContainerAgent_drift(t *testing.T) {
	c := newContainerAccTest(t)
	name, id := c.agentName("Acc Ctr Drift")
	config := c.agent(echoConfig(name, "drifting"))
	heals := resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr(agentAddr, "running", "true"),
		resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
		checkServedByContainer(id),
		checkCard(descriptionIs("drifting")),
	)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps: append([]resource.TestStep{
			{Config: config, Check: heals},
			{
				// The container is deleted out of band: the agent's record
				// outlives it, so the plan provisions it again in place,
				// its config shown unchanged.
				PreConfig: func() { c.mustDocker("rm", "-f", containerName(id)) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					configKept{},
				}},
				Check: heals,
			},
			{
				// The container is stopped out of band, and the restart
				// policy leaves it stopped: the plan starts it.
				PreConfig: func() { c.mustDocker("stop", containerName(id)) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("running"), knownvalue.Bool(true)),
				}},
				Check: heals,
			},
			// The agent, running again, imports as it is, with an empty
			// plan: the lifecycle test imports a stopped one.
		}, importSteps(agentAddr, id)...),
	})
}

func TestAccContainerAgent_envAllowlist(t *testing.T) {
	c := newContainerAccTest(t)
	name, id := c.agentName("Acc Ctr Env")
	const variable = "A2A_ACC_CTR_GREETING"
	greeting := "hola-" + c.suffix + "-5e1d0b"
	t.Setenv(variable, greeting)
	config := c.agent(fmt.Sprintf("[agent]\nname = %q\ndescription = \"hello $${%s}\"\n", name, variable),
		"  env_allowlist = a2a_env_allowlist.test.reference") + fmt.Sprintf(`
resource "a2a_env_allowlist" "test" {
  name      = "acc-ctr-greetings"
  variables = [%q]
}
`, variable)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps: append([]resource.TestStep{
			{
				// The card shows the value, expanded by the agent host in
				// the container; state holds only the name.
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					checkServedByContainer(id),
					resource.TestCheckResourceAttr(agentAddr, "injected_env.#", "1"),
					resource.TestCheckResourceAttr(agentAddr, "injected_env.0", variable),
					checkCard(descriptionIs("hello "+greeting)),
					c.checkNotPersisted(greeting),
				),
			},
			// The container records its allowlist, so import (below)
			// adopts the agent whole.
		}, importSteps(agentAddr, id)...),
	})
}

// TestAccContainerAgent_failedStartLeavesNothing starts an agent whose host
// exits at once: under the engine's restart policy it would loop until the
// next apply, so the failed create must remove its container and record.
func TestAccContainerAgent_failedStartLeavesNothing(t *testing.T) {
	c := newContainerAccTest(t)
	name, id := c.agentName("Acc Ctr Broken")
	const empty = "A2A_ACC_CTR_EMPTY_VAR"
	broken, _ := c.brokenAgent(name, empty, "acc-ctr-broken", "30s")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps:                    failedCreateSteps(t, broken, `(?s)Agent `+id+` did not start.*removed\s+again.*`+empty, c.checkNothingKept),
	})
}

// TestAccContainerAgent_missingNetwork names a network the engine lacks:
// Docker creates the container but refuses to start it, and the apply
// error must carry the engine's own words, not claim the container is gone.
func TestAccContainerAgent_missingNetwork(t *testing.T) {
	c := newContainerAccTest(t)
	network := "a2a-acc-missing-" + c.suffix
	c.adapterBlock = fmt.Sprintf("  container {\n    stop_grace_period = \"3s\"\n    network = %q\n  }\n", network)
	name, _ := c.agentName("Acc Ctr No Network")

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             c.checkNoContainers,
		Steps: []resource.TestStep{{
			Config: c.agent(echoConfig(name, "nowhere to join")),
			// Docker's reason, which Podman words otherwise.
			ExpectError: regexp.MustCompile(`(?s)` + wordsPattern("refused to start the agent's container:") + `.*` +
				wordsPattern("network "+network+" not found") + `.*` + wordsPattern(`create it on the engine`)),
		}},
	})
}

// configKept is a plan check that the agent's config reads the same before
// and after the change: a plan that mends drift shows what it changes, not
// the whole config as new.
type configKept struct{}

func (configKept) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != agentAddr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		if before["config"] == nil || before["config"] != after["config"] {
			resp.Error = fmt.Errorf("the plan changes the config from %q to %q", before["config"], after["config"])
		}
		return
	}
	resp.Error = fmt.Errorf("the plan does not hold %s", agentAddr)
}
