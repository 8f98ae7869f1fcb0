package provider

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// kubeBroughtImageEnv names the image of brought agents the cluster has
// loaded (make test-kube loads it): the SDK's static a2a tool at /a2a and
// a static busybox as /bin/sh, with no entrypoint.
const kubeBroughtImageEnv = "A2A_KUBE_BROUGHT_IMAGE"

// broughtImage is the image of brought agents, or skips the test, or fails
// it where A2A_REQUIRE_KUBE=1 asks for everything the cluster tests need.
func (k *kubeCluster) broughtImage(t *testing.T) string {
	t.Helper()
	image := os.Getenv(kubeBroughtImageEnv)
	switch {
	case image != "":
	case os.Getenv("A2A_REQUIRE_KUBE") == "1":
		t.Fatalf("A2A_REQUIRE_KUBE=1 but %s is not set", kubeBroughtImageEnv)
	default:
		t.Skipf("%s is not set (make test-kube runs these tests on a cluster of its own)", kubeBroughtImageEnv)
	}
	return image
}

// TestAccKubeBroughtAgent runs the SDK's a2a tool from an image of its own on
// the cluster, as an echo agent and as a shell command turned into an agent
// (--exec, which runs `sh -c`: busybox, found on the PATH the config sets):
// created healthy, its card read and a message answered over a
// port-forward, imported with an empty plan, and destroyed leaving no
// object of it behind.
func TestAccKubeBroughtAgent(t *testing.T) {
	tests := []struct {
		name        string
		serve       []string
		env         string
		ask, answer string
	}{
		{"echo", []string{"--echo"}, "", "hello from the cluster", "hello from the cluster"},
		{"exec", []string{"--exec", "tr a-z A-Z"}, "PATH = \"/bin\"\n", "shout this", "SHOUT THIS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newAccTest(t)
			k := needKube(t)
			image := k.broughtImage(t)
			ns, name, id := k.agentTest(t, acc, "Kube BYO "+tt.name)
			local := a2acli.FreePort(t)
			forwarded := "http://127.0.0.1:" + strconv.Itoa(local)
			// The card travels in [runtime.env], which a shell writes to the
			// pod's writable /tmp before the tool starts.
			command := append([]string{"/bin/sh", "-c", `printf '%s' "$CARD" >/tmp/card.json && exec /a2a serve "$@"`, "a2a"}, tt.serve...)
			command = append(command, "--transport", "jsonrpc", "--host", "${HOST}", "--port", "${PORT}", "--card", "/tmp/card.json")
			card := a2acli.Card(name, forwarded, a2acli.JSONRPC, "1.0")
			agent := acc.agent(fmt.Sprintf("[agent]\nname = %q\n[runtime]\nimage = %q\npull = \"never\"\ncommand = %s\n[runtime.env]\nCARD = %s\n%s",
				name, image, tomlArray(command...), strconv.Quote(string(card)), tt.env))
			withCard := agent + fmt.Sprintf("\ndata \"a2a_agent_card\" \"test\" {\n  url = %q\n}\n", forwarded)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             k.checkNothingLeft(ns, id),
				Steps: append([]resource.TestStep{
					{
						Config: agent,
						Check:  k.checkServing(t, ns, id, local),
					},
					{
						Config: withCard,
						Check: resource.ComposeAggregateTestCheckFunc(
							resource.TestCheckResourceAttr(cardDataAddr, "name", name),
							resource.TestCheckResourceAttr(cardDataAddr, "skills.0.id", "echo"),
							func(*terraform.State) error { return answersAt(forwarded, a2acli.JSONRPC, "1.0", tt.ask, tt.answer) },
						),
					},
				}, importSteps(agentAddr, id)...),
			})
		})
	}
}

// TestAccKubeBroughtAgent_missingImage checks that a brought agent whose image
// the node lacks, with pull = "never", fails apply saying so and leaves
// no object behind.
func TestAccKubeBroughtAgent_missingImage(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube BYO Missing")
	image := "terraform-provider-a2a-test-absent:" + id
	config := acc.agent(fmt.Sprintf("[agent]\nname = %q\n[runtime]\nimage = %q\npull = \"never\"\n", name, image),
		"  timeouts {\n    create = \"2m\"\n  }")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: failedCreateSteps(t, config, `(?s)did not start.*ErrImageNeverPull.*`+regexp.QuoteMeta(image)+`.*removed again`,
			k.checkNothingLeft(ns, id)),
	})
}
