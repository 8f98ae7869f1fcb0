package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/kubecluster"
)

// readyNodes names the cluster's Ready nodes, which must be two or more:
// the tests of spreading, draining and losing nodes mean nothing on one.
func readyNodes(t *testing.T, rt *Runtime) []string {
	t.Helper()
	list, err := rt.cs.CoreV1().Nodes().List(testContext(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range list.Items {
		if nodeReady(&n) {
			names = append(names, n.Name)
		}
	}
	if len(names) < 2 {
		missing(t, "the cluster has %d Ready node(s) %v; these tests need two (scripts/kube-cluster.sh up brings up two unless KUBE_NODES=1)", len(names), names)
	}
	return names
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podsByNode counts the agent's pods that are not being deleted, by the
// node each runs on.
func podsByNode(t *testing.T, rt *Runtime, id string) map[string]int {
	t.Helper()
	pods, err := rt.pods(testContext(t), "test", id)
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]int{}
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			on[p.Spec.NodeName]++
		}
	}
	return on
}

// TestReplicasSpreadAcrossNodes: an agent of several pods gets the default
// spread by hostname, and the scheduler puts its pods on every node.
func TestReplicasSpreadAcrossNodes(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newNamespace(t)))
	nodes := readyNodes(t, rt)
	a := runningAgent(t, rt, agentruntime.Spec{Config: agentConfig("Kube Spread Nodes"), Replicas: 2 * len(nodes)})
	on := podsByNode(t, rt, a.ID)
	for _, n := range nodes {
		if on[n] == 0 {
			t.Errorf("no pod of the agent's %d runs on node %s: pods by node %v", 2*len(nodes), n, on)
		}
	}
	t.Logf("pods by node: %v", on)
}

// TestDrainKeepsTheAgentAnswering: kubectl drain of the node that runs
// most of an agent's three pods takes one pod at a time: the disruption
// budget refuses the second eviction until the first pod's replacement is
// ready on the other node, and a steady flow of calls through the agent's
// Service meets no failure throughout.
func TestDrainKeepsTheAgentAnswering(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newNamespace(t)))
	readyNodes(t, rt)
	a := runningAgent(t, rt, agentruntime.Spec{Config: agentConfig("Kube Drain"), Replicas: 3})
	on := podsByNode(t, rt, a.ID)
	node := slices.MaxFunc(slices.Collect(maps.Keys(on)), func(x, y string) int { return on[x] - on[y] })
	if on[node] < 2 {
		t.Fatalf("pods by node %v: no node runs two of the agent's three pods, so the budget would never hold a drain back", on)
	}
	flow := serviceFlow(t, rt, a)
	t.Cleanup(func() { clusterScript(t, "kubectl", "uncordon", node) })
	// The agent's pods keep their /tmp in an emptyDir, which goes with them.
	out := clusterScript(t, "kubectl", "drain", node, "--pod-selector", labelAgentID+"="+a.ID, "--delete-emptydir-data", "--timeout", "2m")
	waitPods(t, rt, a.ID, 3)
	result := flow.Stop()
	refused := strings.Count(out, "disruption budget")
	t.Logf("drained %s (pods by node before: %v, after: %v); evictions the budget refused: %d; %v",
		node, on, podsByNode(t, rt, a.ID), refused, result)
	if result.Failed > 0 || result.Calls == 0 {
		t.Errorf("while node %s was drained: %v", node, result)
	}
	if refused == 0 {
		t.Errorf("the disruption budget never refused an eviction while %d of the agent's pods left node %s; kubectl drain said:\n%s", on[node], node, out)
	}
	if n := podsByNode(t, rt, a.ID)[node]; n != 0 {
		t.Errorf("%d pod(s) of the agent still run on the drained node %s", n, node)
	}
}

// clusterScript runs a command of the cluster script, and returns what it
// printed.
func clusterScript(t *testing.T, args ...string) string {
	t.Helper()
	out, err := kubecluster.Run(context.Background(), args...)
	if errors.Is(err, kubecluster.ErrNoScript) {
		missing(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLostNode: when the kubelet of a node that runs one of an agent's two
// pods dies, the agent reads degraded once the cluster marks the node
// unreachable, naming the pod and its node; the cluster evicts the pod
// when the agent's toleration of an unreachable node runs out and runs a
// replacement elsewhere, and the agent reads healthy again.
func TestLostNode(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newNamespace(t)))
	readyNodes(t, rt)
	seconds := int64(5)
	tolerate := func(taint string) agentruntime.Toleration {
		return agentruntime.Toleration{Key: taint, Operator: "Exists", Effect: string(corev1.TaintEffectNoExecute), Seconds: &seconds}
	}
	spec := agentruntime.Spec{Config: agentConfig("Kube Lost Node"), Replicas: 2, Workload: agentruntime.Workload{
		Tolerations: []agentruntime.Toleration{tolerate(corev1.TaintNodeUnreachable), tolerate(corev1.TaintNodeNotReady)}}}
	a := runningAgent(t, rt, spec)
	on := podsByNode(t, rt, a.ID)
	nodes := slices.Sorted(maps.Keys(on))
	if len(nodes) < 2 {
		t.Fatalf("pods by node %v: the agent's two pods share a node, so losing it would leave none", on)
	}
	lost := nodes[len(nodes)-1]
	clusterScript(t, "kubelet", lost, "stop")
	t.Cleanup(func() { clusterScript(t, "kubelet", lost, "start") })

	got := waitHealth(t, rt, a.ID, agentruntime.HealthDegraded)
	if !strings.Contains(got.Degradation, "on node "+lost) || !strings.Contains(got.Degradation, "1 of its 2 pods are ready") {
		t.Errorf("degraded, the agent says %q; want the pod on node %s named, and 1 of 2 pods ready", got.Degradation, lost)
	}
	if h, err := agentruntime.WaitHealthy(testContext(t), rt, a.ID); err != nil {
		t.Fatalf("the cluster did not replace the lost pod: %s, %v", h, err)
	}
	if n := podsByNode(t, rt, a.ID)[lost]; n != 0 {
		t.Errorf("healthy again, the agent still has %d live pod(s) on the lost node %s", n, lost)
	}
}

// waitHealth waits until the agent reads health, and returns it then.
func waitHealth(t *testing.T, rt *Runtime, id string, health agentruntime.Health) agentruntime.Agent {
	t.Helper()
	return waitAgent(t, rt, id, time.Second, func(_ context.Context, a agentruntime.Agent) (bool, string) {
		return a.Health == health, fmt.Sprintf("reads %s (%v), never %s", a.Health, a.CardError, health)
	})
}
