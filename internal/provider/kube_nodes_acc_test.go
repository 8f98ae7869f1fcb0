package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/kubecluster"
)

// TestAccKubeAgent_lostNode: the kubelet of a node that runs one of an
// agent's two pods dies. The plan shows the agent degraded, to be waited
// for in place; apply touches nothing and returns once the cluster has
// replaced the lost pod on the other node, as the agent's tolerations of
// an unreachable node let it after 30 seconds, and the plan after is
// empty. With the node back, destroy leaves nothing.
func TestAccKubeAgent_lostNode(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Lost Node")
	config := acc.agent(fmt.Sprintf("[agent]\nname = %q", name), `  replicas = 2
  kubernetes = {
    tolerations = [
      { key = "node.kubernetes.io/unreachable", operator = "Exists", effect = "NoExecute", toleration_seconds = 30 },
      { key = "node.kubernetes.io/not-ready", operator = "Exists", effect = "NoExecute", toleration_seconds = 30 },
    ]
  }`)
	var lost string
	loseNode := func() {
		lost = k.nodeOfPod(t, ns, id)
		kubeClusterScript(t, "kubelet", lost, "stop")
		t.Cleanup(func() { kubeClusterScript(t, "kubelet", lost, "start") })
		k.waitPodMarkedLost(t, ns, id, lost)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
			},
			{
				PreConfig: loseNode,
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					healthBefore{want: "degraded"},
					plancheck.ExpectKnownValue(agentAddr, tfjsonpath.New("health"), knownvalue.StringExact("healthy")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					func(*terraform.State) error { return k.noLivePodOn(ns, id, lost) },
				),
			},
			{
				PreConfig: func() { kubeClusterScript(t, "kubelet", lost, "start") },
				Config:    config,
				PlanOnly:  true,
			},
		},
	})
}

// TestAccKubeAgent_destroyWhileNodeLost: an agent one of whose nodes
// stopped reporting to the cluster is destroyed all the same, its pod on
// that node removed though no kubelet confirms its end, and nothing of it
// is left.
func TestAccKubeAgent_destroyWhileNodeLost(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Destroy Lost")
	config := acc.agent(fmt.Sprintf("[agent]\nname = %q", name), "  replicas = 2")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: []resource.TestStep{
			{Config: config, Check: resource.TestCheckResourceAttr(agentAddr, "health", "healthy")},
			{
				// The destroy that ends the test comes while the node is lost.
				PreConfig: func() {
					lost := k.nodeOfPod(t, ns, id)
					kubeClusterScript(t, "kubelet", lost, "stop")
					t.Cleanup(func() { kubeClusterScript(t, "kubelet", lost, "start") })
					k.waitPodMarkedLost(t, ns, id, lost)
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// healthBefore is a plan check that the agent read health at the plan's
// refresh.
type healthBefore struct{ want string }

func (h healthBefore) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != agentAddr {
			continue
		}
		if before, _ := rc.Change.Before.(map[string]any); before["health"] != h.want {
			resp.Error = fmt.Errorf("the plan's refresh read health %v, want %s", before["health"], h.want)
		}
		return
	}
	resp.Error = fmt.Errorf("the plan does not hold %s", agentAddr)
}

// nodeOfPod names the node of one of the agent's pods: of those its pods
// run on, the last by name.
func (k *kubeCluster) nodeOfPod(t *testing.T, ns, id string) string {
	t.Helper()
	pods, err := k.cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: agentSelector(id)})
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]bool{}
	for _, p := range pods.Items {
		on[p.Spec.NodeName] = true
	}
	if len(on) < 2 {
		t.Fatalf("the agent's pods run on nodes %v: a cluster of two nodes spreads them (scripts/kube-cluster.sh up, unless KUBE_NODES=1)", on)
	}
	return slices.Max(slices.Collect(maps.Keys(on)))
}

// waitPodMarkedLost waits until the node controller has marked the agent's
// pod on node not ready, as it does once the node stops reporting.
func (k *kubeCluster) waitPodMarkedLost(t *testing.T, ns, id, node string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			for _, c := range p.Status.Conditions {
				if p.Spec.NodeName == node && c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the agent's pod on node %s was never marked not ready after its kubelet stopped", node)
		case <-time.After(time.Second):
		}
	}
}

// noLivePodOn says whether any of the agent's pods not being deleted runs
// on node.
func (k *kubeCluster) noLivePodOn(ns, id, node string) error {
	pods, err := k.cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: agentSelector(id)})
	if err != nil {
		return err
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == node && p.DeletionTimestamp == nil {
			return fmt.Errorf("pod %s of the agent still runs on the lost node %s", p.Name, node)
		}
	}
	return nil
}

// kubeClusterScript runs a command of the cluster script.
func kubeClusterScript(t *testing.T, args ...string) {
	t.Helper()
	if _, err := kubecluster.Run(context.Background(), args...); err != nil {
		t.Fatal(err)
	}
}
