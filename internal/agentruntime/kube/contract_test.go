package kube

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/contracttest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

func TestContract(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	kill := killAgentContainer(opts)
	if kill == nil {
		// make test-kube runs the cluster on this machine, as root: there
		// the case must run.
		if requireKube {
			t.Fatal("A2A_REQUIRE_KUBE=1 but the tests cannot kill the agents' containers (they run as root, with the cluster script of make test-kube): the case of a killed agent would not run")
		}
		t.Log("leaves out the case of a killed agent: the cluster's containers are not this machine's processes to kill")
	}
	contracttest.Run(t, contracttest.Harness{
		New:     func(t *testing.T) agentruntime.Runtime { return newRuntime(t, opts) },
		Config:  func(name string) []byte { return agentConfig(name) },
		Durable: true,
		Kill:    kill,
		FetchCard: func(ctx context.Context, a agentruntime.Agent) ([]byte, error) {
			return fetchCard(ctx, newRuntime(t, opts), a)
		},
		Reach: func(t *testing.T, a agentruntime.Agent) string {
			return reach(t, newRuntime(t, opts), a)
		},
		Brought: func(t *testing.T, name string, serveArgs []string, card []byte) []byte {
			return broughtConfig(name, broughtImage(t), serveArgs, card)
		},
		OtherSettings: func(t *testing.T) agentruntime.Runtime {
			other := opts
			other.Resources.CPURequest, other.StopGracePeriod = "0.02", opts.StopGracePeriod+time.Second
			return newRuntime(t, other)
		},
	})
}

// BroughtImageEnv names the image of brought agents the cluster has without
// pulling it: the A2A SDK's static a2a tool at /a2a and a static busybox as
// /bin/sh, with no entrypoint. `make test-kube` builds and loads it.
const BroughtImageEnv = "A2A_KUBE_BROUGHT_IMAGE"

// broughtImage is the image of brought agents, or skips (or fails) the
// test without one.
func broughtImage(t testing.TB) string {
	t.Helper()
	image := os.Getenv(BroughtImageEnv)
	if image == "" {
		missing(t, "%s is not set: run make test-kube", BroughtImageEnv)
	}
	return image
}

// broughtConfig is the contract suite's brought agent on this adapter: the
// SDK's a2a tool in image, serving card (unless nil), which a shell writes
// from [runtime.env] to the pod's /tmp first. It listens on a port of its
// own, which the Service must lead to.
func broughtConfig(name, image string, serveArgs []string, card []byte) []byte {
	const runtimeTable = "[runtime]\nimage = %q\npull = \"never\"\nport = 9090\ncommand = %s"
	if card == nil {
		command := append(append([]string{"/a2a", "serve"}, serveArgs...), "--host", "${HOST}", "--port", "${PORT}")
		return agentConfig(name, fmt.Sprintf(runtimeTable, image, a2acli.TOMLArray(command...)))
	}
	command := append([]string{"/bin/sh", "-c", `printf '%s' "$A2A_TEST_CARD" >/tmp/card.json && exec /a2a serve "$@"`, "a2a"}, serveArgs...)
	command = append(command, "--host", "${HOST}", "--port", "${PORT}", "--card", "/tmp/card.json")
	return agentConfig(name, fmt.Sprintf(runtimeTable+"\n[runtime.env]\nA2A_TEST_CARD = %s",
		image, a2acli.TOMLArray(command...), strconv.Quote(string(card))))
}
