package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/kubeload"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/pgtest"
)

// taskPairs is how many SendMessage and GetTask pairs a check sends.
const taskPairs = 100

// TestAccKubeAgent_taskStore: an agent of three replicas whose tasks are
// in a PostgreSQL store (a server on this machine, which pods reach at the
// node's address) answers each GetTask right after its SendMessage, 100
// pairs through the API server's service proxy, which picks a pod per
// call, without a miss. The same agent without a store keeps tasks in
// each pod's memory; the test reports how many of its pairs miss.
func TestAccKubeAgent_taskStore(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Tasks")
	nodeIP, podNetworks := k.node(t)
	server := pgtest.Start(t, pgtest.Options{Listen: []string{nodeIP}, Allow: podNetworks})
	const storeVar = "A2A_ACC_KUBE_TASK_STORE"
	t.Setenv(storeVar, server.DSN(nodeIP, server.CreateDatabase(t)))
	agent := func(toml string) string { return acc.agentAllowing(toml, id, storeVar, "  replicas = 3") }
	toml := fmt.Sprintf("[agent]\nname = %q\ndescription = \"kubernetes task store test agent\"", name)
	serving := resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
		k.checkPods(ns, id, 3),
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: []resource.TestStep{
			{
				Config: agent(toml + fmt.Sprintf("\n[tasks]\nstore = \"$${%s}\"", storeVar)),
				Check:  resource.ComposeAggregateTestCheckFunc(serving, k.checkTaskPairs(t, ns, id, true)),
			},
			{
				Config: agent(toml),
				Check:  resource.ComposeAggregateTestCheckFunc(serving, k.checkTaskPairs(t, ns, id, false)),
			},
		},
	})
}

// node returns the address of this machine that the cluster's pods reach
// it at (that of the node that runs in this machine's network namespace),
// and the networks their calls come from: every node's pod networks, and
// every node's address, as which its pods' calls leave for another.
func (k *kubeCluster) node(t *testing.T) (ip string, podNetworks []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nodes, err := k.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	local, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	isLocal := func(addr string) bool {
		return slices.ContainsFunc(local, func(a net.Addr) bool { n, ok := a.(*net.IPNet); return ok && n.IP.String() == addr })
	}
	for _, n := range nodes.Items {
		podNetworks = append(podNetworks, n.Spec.PodCIDRs...)
		for _, a := range n.Status.Addresses {
			if a.Type != corev1.NodeInternalIP {
				continue
			}
			podNetworks = append(podNetworks, a.Address+"/32")
			if isLocal(a.Address) {
				ip = a.Address
			}
		}
	}
	if ip == "" {
		t.Fatalf("no node of the cluster runs at an address of this machine: %d nodes", len(nodes.Items))
	}
	return ip, podNetworks
}

// serviceClient is an A2A SDK client of the agent through the API server's
// proxy to its Service, which sends each call to a pod it picks, as an
// ingress or gateway does.
func (k *kubeCluster) serviceClient(ctx context.Context, ns, id string) (*a2aclient.Client, error) {
	return kubeload.ServiceClient(ctx, k.cfg, ns, "a2a-"+id, 8080)
}

// checkTaskPairs sends taskPairs messages to the agent through its
// Service, each followed by a GetTask of the task it made, and counts the
// GetTask calls that find no task. With a store there must be none, and
// the calls must have reached more than one pod, or none missing would
// prove nothing; without one the count is reported, not held to a number:
// which pod a call reaches is chance.
func (k *kubeCluster) checkTaskPairs(t *testing.T, ns, id string, store bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		client, err := k.serviceClient(ctx, ns, id)
		if err != nil {
			return err
		}
		misses := 0
		for i := range taskPairs {
			text := fmt.Sprintf("pair %d", i)
			res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))})
			if err != nil {
				return fmt.Errorf("SendMessage %d through the service proxy: %w", i, err)
			}
			made, ok := res.(*a2a.Task)
			if !ok {
				return fmt.Errorf("SendMessage %d answered %T, want a task", i, res)
			}
			got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: made.ID})
			switch {
			case errors.Is(err, a2a.ErrTaskNotFound):
				misses++
			case err != nil:
				return fmt.Errorf("GetTask %d through the service proxy: %w", i, err)
			case got.Status.State != a2a.TaskStateCompleted || len(got.Artifacts) != 1 || got.Artifacts[0].Parts[0].Text() != text:
				return fmt.Errorf("GetTask %d answered %+v, want the completed echo of %q", i, got, text)
			}
		}
		t.Logf("replicas = 3, task store %v: %d of %d GetTask calls right after their SendMessage found no task", store, misses, taskPairs)
		if !store {
			return nil
		}
		if misses > 0 {
			return fmt.Errorf("with a task store, %d of %d GetTask calls found no task, want none", misses, taskPairs)
		}
		served, err := k.podsServing(ctx, ns, id, "rpc=GetTask")
		if err != nil {
			return err
		}
		if served < 2 {
			return fmt.Errorf("the GetTask calls reached %d pod(s) of 3: the proxy did not spread them, so no miss proves nothing", served)
		}
		t.Logf("the GetTask calls reached %d of the agent's 3 pods", served)
		return nil
	}
}

// podsServing counts the agent's pods whose log shows a request with
// marker.
func (k *kubeCluster) podsServing(ctx context.Context, ns, id, marker string) (int, error) {
	pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
	if err != nil {
		return 0, err
	}
	served := 0
	for _, p := range pods.Items {
		log, err := k.cs.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		if err != nil {
			return 0, fmt.Errorf("read the log of pod %s: %w", p.Name, err)
		}
		if strings.Contains(string(log), marker) {
			served++
		}
	}
	return served, nil
}
