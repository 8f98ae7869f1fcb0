package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// sdkCase is one shape of agent the official SDK's a2a tool serves.
type sdkCase struct {
	name, binding, protocol string
	serve                   []string // after `serve`, before host, port and card
	ask, answer             string
}

var sdkCases = []sdkCase{
	{"SDK JSON-RPC", a2acli.JSONRPC, "1.0", []string{"--echo", "--transport", "jsonrpc"}, "hello json-rpc", "hello json-rpc"},
	{"SDK REST", a2acli.HTTPJSON, "1.0", []string{"--echo", "--transport", "rest"}, "hello rest", "hello rest"},
	{"SDK 0.3", a2acli.JSONRPC, "0.3", []string{"--echo", "--transport", "jsonrpc", "--protocol", "0.3", "--card-compat"}, "hello 0.3", "hello 0.3"},
}

// tomlArray writes args as a TOML array, escaping Terraform's own
// interpolation so that ${PORT} reaches the agent config as written.
func tomlArray(args ...string) string {
	return strings.ReplaceAll(a2acli.TOMLArray(args...), "${", "$${")
}

// writeCard writes the card an agent named name serves at url.
func writeCard(t *testing.T, dir, name, url, binding, protocol string) string {
	t.Helper()
	path := filepath.Join(dir, agentconfig.Slug(name)+".json")
	if err := os.WriteFile(path, a2acli.Card(name, url, binding, protocol), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// answers asks the agent, at the endpoint in state, through the official
// SDK client and checks what it answers.
func answers(binding, protocol, ask, want string) resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(agentAddr, "endpoint", func(endpoint string) error {
		return answersAt(endpoint, binding, protocol, ask, want)
	})
}

// answersAt asks the agent at endpoint through the official SDK client and
// checks what it answers.
func answersAt(endpoint, binding, protocol, ask, want string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := a2acli.Ask(ctx, endpoint, binding, protocol, ask)
	if err != nil {
		return fmt.Errorf("ask the agent at %s: %w", endpoint, err)
	}
	if !strings.Contains(got, want) {
		return fmt.Errorf("the agent at %s answered %q, want %q", endpoint, got, want)
	}
	return nil
}

// withCardData adds data.a2a_agent_card reading the agent's card by its
// endpoint, which waits for the agent because it refers to it.
func withCardData(config string) string {
	return config + "\ndata \"a2a_agent_card\" \"test\" {\n  url = a2a_agent.test.endpoint\n}\n"
}

// broughtSteps are the lifecycle every brought agent goes through: created
// healthy with its card read and a message answered, crashed and healed,
// imported with an empty plan. crash kills the agent out of band; its
// record outlives it, so the plan heals it in place.
func broughtSteps(config, id string, c sdkCase, name string, crash func(), extra resource.TestCheckFunc) []resource.TestStep {
	healthy := resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
		resource.TestCheckResourceAttr(cardDataAddr, "name", name),
		answers(c.binding, c.protocol, c.ask, c.answer),
		extra,
	)
	return append([]resource.TestStep{
		{Config: config, Check: healthy},
		{
			PreConfig: crash,
			Config:    config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
			}},
			Check: healthy,
		},
	}, importSteps(agentAddr, id)...)
}

// TestAccBroughtAgent_local runs the SDK's a2a tool as agents of the local
// adapter, in each shape it serves.
func TestAccBroughtAgent_local(t *testing.T) {
	for _, c := range sdkCases {
		t.Run(c.name, func(t *testing.T) {
			acc := newAccTest(t)
			bin := a2acli.Binary(t)
			port := a2acli.FreePort(t)
			cardFile := writeCard(t, t.TempDir(), c.name, fmt.Sprintf("http://127.0.0.1:%d", port), c.binding, c.protocol)
			command := append(append([]string{bin, "serve"}, c.serve...), "--host", "${HOST}", "--port", "${PORT}", "--card", cardFile)
			config := withCardData(acc.agent(fmt.Sprintf("[agent]\nname = %q\n[runtime]\ncommand = %s\nport = %d\n", c.name, tomlArray(command...), port)))
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             acc.checkNothingLeft,
				Steps:                    broughtSteps(config, agentconfig.Slug(c.name), c, c.name, acc.killAgent, acc.recordPID()),
			})
		})
	}
}

// TestAccBroughtAgent_localExec turns a shell script into an agent with the
// tool's --exec; TestAccBroughtAgent_containerExec does so in a container.
func TestAccBroughtAgent_localExec(t *testing.T) {
	acc := newAccTest(t)
	c := sdkCase{"SDK Exec", a2acli.JSONRPC, "1.0", nil, "shout this", "SHOUT THIS"}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "shout.sh"), []byte("#!/bin/sh\ntr a-z A-Z\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	port := a2acli.FreePort(t)
	cardFile := writeCard(t, work, c.name, fmt.Sprintf("http://127.0.0.1:%d", port), c.binding, c.protocol)
	command := []string{a2acli.Binary(t), "serve", "--exec", "./shout.sh", "--transport", "jsonrpc", "--host", "${HOST}", "--port", "${PORT}", "--card", "card.json"}
	if err := os.Rename(cardFile, filepath.Join(work, "card.json")); err != nil {
		t.Fatal(err)
	}
	config := withCardData(acc.agent(fmt.Sprintf("[agent]\nname = %q\n[runtime]\ncommand = %s\nport = %d\nworking_dir = %q\n",
		c.name, tomlArray(command...), port, work)))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps:                    broughtSteps(config, "sdk-exec", c, c.name, acc.killAgent, acc.recordPID()),
	})
}

// killAgent SIGKILLs the agent process the last check recorded, and its
// supervisor first, so that it stays down.
func (a *accTest) killAgent() {
	a.t.Helper()
	pids := a.seenPIDs()
	for _, pid := range pids {
		if processGone(pid) {
			continue
		}
		killSupervisorOf(a.t, pid)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			a.t.Fatalf("kill agent %d: %v", pid, err)
		}
		if !waitGone(pid) {
			a.t.Fatalf("agent %d survived SIGKILL", pid)
		}
	}
}

// TestAccBroughtAgent_localFailures covers brought agents that cannot serve:
// each fails apply with a clear error and leaves nothing running or recorded.
func TestAccBroughtAgent_localFailures(t *testing.T) {
	tests := []struct {
		name    string
		runtime func(t *testing.T, bin string, port int) string
		want    string
	}{
		{"missing executable", func(t *testing.T, _ string, _ int) string {
			return fmt.Sprintf("command = [\"./no-such-agent\"]\nworking_dir = %q\n", t.TempDir())
		}, `(?s)runtime\.command:.*"\./no-such-agent"\s+cannot\s+be\s+run`},
		{"exits at once", func(_ *testing.T, bin string, _ int) string {
			return "command = " + tomlArray(bin, "serve") + "\n"
		}, `(?s)did not start.*exited.*specify --echo`},
		{"invalid card", func(t *testing.T, bin string, port int) string {
			invalid := filepath.Join(t.TempDir(), "card.json")
			if err := os.WriteFile(invalid, []byte(`{"name": "no interfaces", "version": "1"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			return "command = " + tomlArray(bin, "serve", "--echo", "--port", "${PORT}", "--card", invalid) + fmt.Sprintf("\nport = %d\n", port)
		}, `(?s)not\s+a\s+valid\s+A2A\s+1\.0\s+or\s+0\.3\s+card.*\$\.supportedInterfaces.*Last \d+ lines of the agent's log`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newAccTest(t)
			config := acc.agent(fmt.Sprintf("[agent]\nname = %q\n[runtime]\n%s", "BYO "+tt.name, tt.runtime(t, a2acli.Binary(t), a2acli.FreePort(t))),
				"  timeouts {\n    create = \"30s\"\n  }")
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             acc.checkNothingLeft,
				Steps:                    failedCreateSteps(t, config, tt.want, acc.checkNothingLeft),
			})
		})
	}
}

// TestAccBroughtAgent_wrongAdvertisedURL checks an agent whose card advertises
// a URL that does not reach it still applies, healthy; the warning itself
// is tested by TestUnreachableCardWarning, as the test framework does not
// show warnings to tests.
func TestAccBroughtAgent_wrongAdvertisedURL(t *testing.T) {
	acc := newAccTest(t)
	port := a2acli.FreePort(t)
	cardFile := writeCard(t, t.TempDir(), "BYO Wrong URL", "http://0.0.0.0:8080", a2acli.JSONRPC, "1.0")
	command := []string{a2acli.Binary(t), "serve", "--echo", "--transport", "jsonrpc", "--port", "${PORT}", "--card", cardFile}
	config := acc.agent(fmt.Sprintf("[agent]\nname = \"BYO Wrong URL\"\n[runtime]\ncommand = %s\nport = %d\n", tomlArray(command...), port))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{{Config: config, Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
			acc.recordPID(),
			answers(a2acli.JSONRPC, "1.0", "still here", "still here"),
		)}},
	})
}

// TestAccBroughtAgent_sdkDefaultCard runs the SDK's echo agent with the card it
// makes itself, which has no skills: the specification's own signing example
// has such a card, so the agent is healthy and its card readable (with a
// warning the framework does not show to tests; see TestCardDeviationsWarning).
func TestAccBroughtAgent_sdkDefaultCard(t *testing.T) {
	acc := newAccTest(t)
	command := []string{a2acli.Binary(t), "serve", "--echo", "--host", "${HOST}", "--port", "${PORT}"}
	config := withCardData(acc.agent(fmt.Sprintf("[agent]\nname = \"SDK Default Card\"\n[runtime]\ncommand = %s\nport = %d\n",
		tomlArray(command...), a2acli.FreePort(t))))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             acc.checkNothingLeft,
		Steps: []resource.TestStep{{Config: config, Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
			resource.TestCheckResourceAttr(cardDataAddr, "name", "Echo Agent"),
			resource.TestCheckResourceAttr(cardDataAddr, "skills.#", "0"),
			answers(a2acli.HTTPJSON, "1.0", "hello default card", "hello default card"),
			acc.recordPID(),
		)}},
	})
}
