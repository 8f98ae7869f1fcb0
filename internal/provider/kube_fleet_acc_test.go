//go:build linux

package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// TestAccKubeList_generateConfig adopts, in a configuration of its own,
// the agents another configuration made on the cluster, one running and
// one stopped, as TestAccAgentList_generateConfig does on the local
// adapter: the list reads them off the labels of the Deployments in the
// provider block's namespace, and the generated configuration imports
// them with nothing to change.
func TestAccKubeList_generateConfig(t *testing.T) {
	requireAcc(t)
	cli := newerTerraform(t)
	k := needKube(t)
	ns := k.namespace(t)
	stateDir := t.TempDir()
	provider := k.providerConfig(stateDir, ns)
	config := provider
	var ids []string
	for _, agent := range []struct{ label, extra string }{{"Running", ""}, {"Idle", "  running = false\n"}} {
		name := uniqueName("Kube Listed " + agent.label)
		ids = append(ids, agentconfig.Slug(name))
		config += fmt.Sprintf("resource \"a2a_agent\" %q {\n  config = \"[agent]\\nname = \\\"%s\\\"\\n\"\n%s}\n", strings.ToLower(agent.label), name, agent.extra)
	}
	owner := newDevWorld(t, stateDir)
	owner.useTerraform(cli)
	owner.write("main.tf", config)
	owner.destroyAtCleanup()
	owner.terraform("apply", "-auto-approve", "-input=false")

	query := "list \"a2a_agent\" \"all\" {\n  provider = a2a\n}\n"
	adopter, _ := adoptByQuery(t, cli, stateDir, provider, query, len(ids))

	adopter.terraform("destroy", "-auto-approve", "-input=false")
	owner.terraform("destroy", "-auto-approve", "-input=false")
	for _, id := range ids {
		if err := k.checkNothingLeft(ns, id)(nil); err != nil {
			t.Error(err)
		}
	}
}

// TestAccKubeAgentRestartAction: a2a_agent_restart rolls an agent on the
// cluster over to a fresh pod, which reads the value its allowlisted
// variable has now, a rotated secret; the pod it ran in goes only after,
// and the plan after it is empty.
func TestAccKubeAgentRestartAction(t *testing.T) {
	requireAcc(t)
	cli := newerTerraform(t)
	k := needKube(t)
	ns := k.namespace(t)
	stateDir := t.TempDir()
	name := uniqueName("Kube Rotating")
	id := agentconfig.Slug(name)
	w := newDevWorld(t, stateDir)
	w.useTerraform(cli)
	w.env = append(w.env, "KUBE_ROT_VALUE=kube-rotated-before")
	w.write("main.tf", k.providerConfig(stateDir, ns)+fmt.Sprintf(`
resource "a2a_env_allowlist" "rot" {
  name      = "kube-rot-value"
  variables = ["KUBE_ROT_VALUE"]
}

resource "a2a_agent" "rot" {
  config        = "[agent]\nname = \"%s\"\ndescription = \"$${KUBE_ROT_VALUE}\"\n"
  env_allowlist = a2a_env_allowlist.rot.reference
}

action "a2a_agent_restart" "rot" {
  config {
    id = a2a_agent.rot.id
  }
}
`, name))
	w.destroyAtCleanup()
	w.terraform("apply", "-auto-approve", "-input=false")
	before := k.podNames(t, ns, id)

	w.env = append(w.env, "KUBE_ROT_VALUE=kube-rotated-after")
	out := w.terraform("apply", "-auto-approve", "-input=false", "-invoke=action.a2a_agent_restart.rot")
	if !printed("Restarting agent " + id + ", replacing its instances one at a time").MatchString(out) {
		t.Errorf("the invoke does not say the restart rolls:\n%s", out)
	}
	after := k.podNames(t, ns, id)
	if len(after) != 1 || after[0] == before[0] {
		t.Fatalf("after the restart the agent runs in pods %v, want one other than %v", after, before)
	}
	local := a2acli.FreePort(t)
	if err := k.forward(t, ns, id, local); err != nil {
		t.Fatal(err)
	}
	if err := fetchCard(fmt.Sprintf("http://127.0.0.1:%d%s", local, card.WellKnownPath), descriptionIs("kube-rotated-after")); err != nil {
		t.Errorf("the restarted pod: %v", err)
	}
	if out, code := w.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Errorf("the plan after the restart is not empty (exit %d):\n%s", code, out)
	}
}

// providerConfig is a configuration's provider requirement and block,
// for agents in namespace ns and allowlists in stateDir.
func (k *kubeCluster) providerConfig(stateDir, ns string) string {
	return fmt.Sprintf("terraform {\n  required_providers {\n    a2a = { source = \"a2a-terraform/a2a\" }\n  }\n}\n\n"+
		"provider \"a2a\" {\n  state_dir = %q\n%s}\n", stateDir, k.block(ns))
}

// podNames waits until the agent's pods are only those not on their way
// out, and returns their names.
func (k *kubeCluster) podNames(t *testing.T, ns, id string) []string {
	t.Helper()
	var names []string
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
		if err != nil {
			return false, err
		}
		names = names[:0]
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				return false, nil
			}
			names = append(names, p.Name)
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("pods of agent %s: %v", id, err)
	}
	return names
}
