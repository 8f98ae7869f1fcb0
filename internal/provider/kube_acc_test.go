package provider

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/kubeforward"
)

// kubeImageEnv names the agent image the cluster KUBECONFIG leads to has
// loaded (make test-kube loads it).
const kubeImageEnv = "A2A_KUBE_TEST_IMAGE"

// kubeCluster is the cluster the kubernetes acceptance tests run agents on.
type kubeCluster struct {
	cfg   *rest.Config
	cs    kubernetes.Interface
	image string
}

// needKube connects to the cluster KUBECONFIG names, or skips the test, or
// fails it where A2A_REQUIRE_KUBE=1 asks for a cluster.
func needKube(t *testing.T) *kubeCluster {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("A2A_REQUIRE_KUBE") == "1" {
			t.Fatalf("A2A_REQUIRE_KUBE=1 but "+format, args...)
		}
		t.Skipf(format+" (make test-kube runs these tests on a cluster of its own)", args...)
	}
	image := os.Getenv(kubeImageEnv)
	if os.Getenv("KUBECONFIG") == "" || image == "" {
		missing("KUBECONFIG and %s are not both set", kubeImageEnv)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		missing("load KUBECONFIG: %v", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		missing("no cluster answers at %s: %v", cfg.Host, err)
	}
	return &kubeCluster{cfg: cfg, cs: cs, image: image}
}

// namespace creates a namespace for the test, deleted when it ends.
func (k *kubeCluster) namespace(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ns := "a2a-acc-" + hex.EncodeToString(b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := k.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	// Pods are refused until the namespace's default service account exists.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := k.cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("namespace %s has no default service account: %v", ns, err)
	}
	return ns
}

// agentSelector selects every object and pod of agent id.
func agentSelector(id string) string {
	return "app.kubernetes.io/managed-by=terraform-provider-a2a,a2a/agent-id=" + id
}

// forward forwards 127.0.0.1:local to the agent host's port in the agent's
// pod, through the API server, until the test ends: the way this machine
// reaches an agent inside the cluster.
func (k *kubeCluster) forward(t *testing.T, ns, id string, local int) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
	if err != nil {
		return err
	}
	if len(pods.Items) != 1 {
		return fmt.Errorf("agent %s has %d pods, want 1", id, len(pods.Items))
	}
	_, stop, err := kubeforward.Forward(ctx, k.cfg, k.cs, ns, pods.Items[0].Name, local, 8080)
	if err != nil {
		return fmt.Errorf("agent %s: %w", id, err)
	}
	t.Cleanup(stop)
	return nil
}

// checkRunning proves that the agent in state runs as one ready pod of
// its Deployment, which the instance names.
func (k *kubeCluster) checkRunning(ns, id string) resource.TestCheckFunc {
	return k.checkPods(ns, id, 1)
}

// checkNothingLeft is a CheckDestroy: no object and no pod of the agent is
// left in the namespace.
func (k *kubeCluster) checkNothingLeft(ns, id string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for kind, list := range k.agentObjects(ctx, ns, agentSelector(id)) {
			l, err := list()
			if err != nil {
				return err
			}
			if n := meta.LenList(l); n > 0 {
				return fmt.Errorf("destroy left %d %s of agent %s in namespace %s", n, kind, id, ns)
			}
		}
		return nil
	}
}

// agentObjects lists, by kind, the objects and pods of namespace ns that
// selector selects: every kind an agent has.
func (k *kubeCluster) agentObjects(ctx context.Context, ns, selector string) map[string]func() (runtime.Object, error) {
	opts := metav1.ListOptions{LabelSelector: selector}
	return map[string]func() (runtime.Object, error){
		"deployments": func() (runtime.Object, error) { return k.cs.AppsV1().Deployments(ns).List(ctx, opts) },
		"services":    func() (runtime.Object, error) { return k.cs.CoreV1().Services(ns).List(ctx, opts) },
		"configmaps":  func() (runtime.Object, error) { return k.cs.CoreV1().ConfigMaps(ns).List(ctx, opts) },
		"secrets":     func() (runtime.Object, error) { return k.cs.CoreV1().Secrets(ns).List(ctx, opts) },
		"pods":        func() (runtime.Object, error) { return k.cs.CoreV1().Pods(ns).List(ctx, opts) },
		"poddisruptionbudgets": func() (runtime.Object, error) {
			return k.cs.PolicyV1().PodDisruptionBudgets(ns).List(ctx, opts)
		},
		"horizontalpodautoscalers": func() (runtime.Object, error) {
			return k.cs.AutoscalingV2().HorizontalPodAutoscalers(ns).List(ctx, opts)
		},
	}
}

// block is the provider block's kubernetes block for agents in namespace
// ns, run from the test image.
func (k *kubeCluster) block(ns string) string {
	return fmt.Sprintf("  kubernetes {\n    namespace         = %q\n    base_image        = %q\n"+
		"    image_pull_policy = \"Never\"\n    stop_grace_period = \"3s\"\n  }\n", ns, k.image)
}

// uniqueName is an agent name that no other run on the cluster uses.
func uniqueName(prefix string) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return prefix + " " + hex.EncodeToString(b)
}

// agentTest readies acc for one agent on the cluster: a namespace of the
// test's own, selected in the provider block, and a unique agent name
// starting with prefix, and its id.
func (k *kubeCluster) agentTest(t *testing.T, acc *accTest, prefix string) (ns, name, id string) {
	t.Helper()
	ns = k.namespace(t)
	acc.adapterBlock = k.block(ns)
	name = uniqueName(prefix)
	return ns, name, agentconfig.Slug(name)
}

// checkServing checks that a new agent is healthy in one pod, at the card
// URL of its Service, and forwards the loopback port local to it.
func (k *kubeCluster) checkServing(t *testing.T, ns, id string, local int) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
		resource.TestCheckResourceAttr(agentAddr, "card_url",
			fmt.Sprintf("http://a2a-%s.%s.svc.cluster.local:8080/.well-known/agent-card.json", id, ns)),
		k.checkRunning(ns, id),
		func(*terraform.State) error { return k.forward(t, ns, id, local) },
	)
}

// TestAccKubeAgent creates an agent on the cluster through terraform,
// reads its card through the data source, and destroys it, leaving no
// object of it behind.
func TestAccKubeAgent(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Acc")
	agent := acc.agent(fmt.Sprintf("[agent]\nname = %q\ndescription = \"kubernetes acceptance test agent\"", name))
	local := a2acli.FreePort(t)
	withCard := agent + fmt.Sprintf("\ndata \"a2a_agent_card\" \"test\" {\n  url = \"http://127.0.0.1:%d\"\n}\n", local)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: []resource.TestStep{
			{
				Config: agent,
				Check:  k.checkServing(t, ns, id, local),
			},
			{
				Config: withCard,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(cardDataAddr, "name", name),
					checkEcho(local, "hello through the cluster"),
				),
			},
		},
	})
}

// checkEcho sends text through the official A2A SDK client to the agent
// that 127.0.0.1:local forwards to, over each binding, and expects it
// echoed back.
func checkEcho(local int, text string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		base := fmt.Sprintf("http://127.0.0.1:%d", local)
		for binding, endpoint := range map[string]string{a2acli.JSONRPC: base, a2acli.HTTPJSON: base, a2acli.GRPC: base[len("http://"):]} {
			got, err := a2acli.Ask(ctx, endpoint, binding, "1.0", text)
			if err != nil {
				return fmt.Errorf("send a message to the agent through the SDK client over %s: %w", binding, err)
			}
			if got != text {
				return fmt.Errorf("the agent answered %q over %s, want its echo %q", got, binding, text)
			}
		}
		return nil
	}
}

// podsGone waits until the agent has no pod left, as after an operator's
// kubectl command has taken effect.
func (k *kubeCluster) podsGone(t *testing.T, ns, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
		return err == nil && len(pods.Items) == 0, nil
	})
	if err != nil {
		t.Fatalf("the pods of agent %s are not gone: %v", id, err)
	}
}

// TestAccKubeAgent_drift: what an operator does to an agent's objects
// behind terraform's back (deleting its Deployment, scaling it to zero,
// killing its pod) shows in the plan, and apply heals it in place; the agent imports with
// the state it had, and an import block of it plans nothing.
func TestAccKubeAgent_drift(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Drift")
	config := acc.agent(fmt.Sprintf("[agent]\nname = %q\ndescription = \"kubernetes drift test agent\"", name))
	deployment := "a2a-" + id
	heals := resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr(agentAddr, "running", "true"),
		resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
		k.checkRunning(ns, id),
	)
	updates := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
	}}
	ctx := context.Background()
	var killed []string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: append([]resource.TestStep{
			{Config: config, Check: heals},
			{
				// kubectl delete deployment: the rest of the agent's objects
				// keep it tracked, and apply creates the Deployment again.
				PreConfig: func() {
					if err := k.cs.AppsV1().Deployments(ns).Delete(ctx, deployment, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
					k.podsGone(t, ns, id)
				},
				Config:           config,
				ConfigPlanChecks: updates,
				Check:            heals,
			},
			{
				// kubectl scale --replicas=0: the agent reads stopped, and
				// apply starts it again.
				PreConfig: func() {
					scale, err := k.cs.AppsV1().Deployments(ns).GetScale(ctx, deployment, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					scale.Spec.Replicas = 0
					if _, err := k.cs.AppsV1().Deployments(ns).UpdateScale(ctx, deployment, scale, metav1.UpdateOptions{}); err != nil {
						t.Fatal(err)
					}
					k.podsGone(t, ns, id)
				},
				Config:           config,
				ConfigPlanChecks: updates,
				Check:            heals,
			},
			{
				// kubectl delete pod --grace-period=0 --force: the
				// Deployment makes a new pod, which the next refresh finds
				// (or apply restarts, while it is still starting), in place.
				PreConfig: func() { killed = k.killPods(t, ns, id) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					inPlace{},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(heals,
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
						if slices.Contains(killed, v) {
							return fmt.Errorf("the agent's instance is still the killed pod %s", v)
						}
						return nil
					}),
				),
			},
		}, importSteps(agentAddr, id)...),
	})
}

// killPods deletes the agent's pods at once, as kubectl delete pod
// --grace-period=0 --force does, and returns their names.
func (k *kubeCluster) killPods(t *testing.T, ns, id string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) == 0 {
		t.Fatalf("agent %s has no pod to kill", id)
	}
	var names []string
	now := int64(0)
	for _, p := range pods.Items {
		if err := k.cs.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &now}); err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	return names
}

// inPlace is a plan check that the agent is in the plan and neither
// replaced nor deleted: drift heals in place.
type inPlace struct{}

func (inPlace) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != agentAddr {
			continue
		}
		if rc.Change.Actions.Replace() || rc.Change.Actions.Delete() {
			resp.Error = fmt.Errorf("the plan would %v %s, want it healed in place", rc.Change.Actions, agentAddr)
		}
		return
	}
	resp.Error = fmt.Errorf("the plan does not hold %s", agentAddr)
}

// checkPods proves that the agent runs as want ready pods, which its
// instance names.
func (k *kubeCluster) checkPods(ns, id string, want int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
		if err != nil {
			return err
		}
		var live []string
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				live = append(live, p.Name)
			}
		}
		slices.Sort(live)
		if got := s.RootModule().Resources[agentAddr].Primary.Attributes["instance"]; got != strings.Join(live, ",") || len(live) != want {
			return fmt.Errorf("agent %s runs pods %v and its instance is %q, want %d pods named by the instance", id, live, got, want)
		}
		return nil
	}
}

// podsKept records the agent's pods when *pods is empty, and otherwise
// proves each of them still runs, the same pod, not restarted.
func (k *kubeCluster) podsKept(ns, id string, pods *[]corev1.Pod) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		list, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
		if err != nil {
			return err
		}
		if len(*pods) == 0 {
			*pods = list.Items
			return nil
		}
		for _, before := range *pods {
			i := slices.IndexFunc(list.Items, func(p corev1.Pod) bool { return p.UID == before.UID })
			if i < 0 || list.Items[i].DeletionTimestamp != nil {
				return fmt.Errorf("pod %s of agent %s did not keep running", before.Name, id)
			}
			for _, c := range list.Items[i].Status.ContainerStatuses {
				if c.RestartCount > 0 {
					return fmt.Errorf("pod %s of agent %s restarted its agent", before.Name, id)
				}
			}
		}
		return nil
	}
}

// podsReplaced proves that none of *pods, when it holds any, is among the
// agent's pods any more but on its way out, and records those that are not
// in *pods.
func (k *kubeCluster) podsReplaced(ns, id string, pods *[]corev1.Pod) resource.TestCheckFunc {
	return func(*terraform.State) error {
		list, err := k.cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: agentSelector(id)})
		if err != nil {
			return err
		}
		staying := slices.DeleteFunc(list.Items, func(p corev1.Pod) bool { return p.DeletionTimestamp != nil })
		for _, before := range *pods {
			if slices.ContainsFunc(staying, func(p corev1.Pod) bool { return p.UID == before.UID }) {
				return fmt.Errorf("pod %s of agent %s is still there: the agent was not rolled over to new pods", before.Name, id)
			}
		}
		*pods = staying
		return nil
	}
}

// TestAccKubeAgent_replicas: an agent asks for two pods and gets them,
// then for three, and gets three more by a scale in place: the two keep
// running; it imports with the replicas it has.
func TestAccKubeAgent_replicas(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Replicas")
	toml := fmt.Sprintf("[agent]\nname = %q\ndescription = \"kubernetes replicas test agent\"", name)
	var pods []corev1.Pod
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: append([]resource.TestStep{
			{
				Config: acc.agent(toml, "  replicas = 2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					resource.TestCheckResourceAttr(agentAddr, "replicas", "2"),
					k.checkPods(ns, id, 2),
					k.podsKept(ns, id, &pods),
				),
			},
			{
				Config: acc.agent(toml, "  replicas = 3"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					resource.TestCheckResourceAttr(agentAddr, "replicas", "3"),
					k.checkPods(ns, id, 3),
					k.podsKept(ns, id, &pods),
				),
			},
		}, importSteps(agentAddr, id)...),
	})
}

// TestAccKubeAgent_moveNamespace: pointed at another namespace, the
// provider moves the agent there: it removes it from the namespace it was
// started in, which the provider block no longer names, and creates it in
// the new one.
func TestAccKubeAgent_moveNamespace(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	from, to := k.namespace(t), k.namespace(t)
	name := uniqueName("Kube Move")
	id := agentconfig.Slug(name)
	toml := fmt.Sprintf("[agent]\nname = %q\ndescription = \"kubernetes move test agent\"", name)
	in := func(ns string) string {
		acc.adapterBlock = k.block(ns)
		return acc.agent(toml)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(to, id),
		Steps: []resource.TestStep{
			{Config: in(from), Check: k.checkRunning(from, id)},
			{
				Config: in(to),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					k.checkRunning(to, id),
					k.checkNothingLeft(from, id),
				),
			},
		},
	})
}

// TestAccKubeAgent_providerSettings: the kubernetes block's advertised URL
// template gives the agent its endpoint, already in the plan, its replicas
// default the agent's pods, and its resources and pull secrets reach the
// Deployment; a new template moves the agent, in the plan as well; new
// resources and a new grace period plan an update naming them, which rolls
// the agent over to new pods that have them; the agent imports with an
// empty plan.
func TestAccKubeAgent_providerSettings(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns := k.namespace(t)
	name := uniqueName("Kube Settings")
	id := agentconfig.Slug(name)
	cpu := "20m" // the CPU request the Deployment is checked for
	config := func(template, cpu string) string {
		acc.adapterBlock = strings.TrimSuffix(k.block(ns), "  }\n") + `    advertised_url     = "` + template + `"
    replicas           = 2
    image_pull_secrets = ["registry-creds"]
    resources {
      cpu_request  = "` + cpu + `"
      memory_limit = "200Mi"
    }
  }
`
		return acc.agent(fmt.Sprintf("[agent]\nname = %q\ndescription = \"kubernetes settings test agent\"", name))
	}
	deployment := func(*terraform.State) error {
		d, err := k.cs.AppsV1().Deployments(ns).Get(context.Background(), "a2a-"+id, metav1.GetOptions{})
		if err != nil {
			return err
		}
		pod := d.Spec.Template.Spec
		res := pod.Containers[0].Resources
		if len(pod.ImagePullSecrets) != 1 || pod.ImagePullSecrets[0].Name != "registry-creds" ||
			res.Requests.Cpu().String() != cpu || res.Limits.Memory().String() != "200Mi" {
			return fmt.Errorf("the Deployment's pods have pull secrets %+v and resources %+v, want %s of CPU", pod.ImagePullSecrets, res, cpu)
		}
		return nil
	}
	var pods []corev1.Pod
	advertises := func(endpoint string) resource.TestStep {
		return resource.TestStep{
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(agentAddr, at("endpoint"), knownvalue.StringExact(endpoint)),
				plancheck.ExpectKnownValue(agentAddr, at("card_url"), knownvalue.StringExact(endpoint+"/.well-known/agent-card.json")),
				plancheck.ExpectKnownValue(agentAddr, at("replicas"), knownvalue.Int64Exact(2)),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
				resource.TestCheckResourceAttr(agentAddr, "endpoint", endpoint),
				k.checkPods(ns, id, 2),
				deployment,
			),
		}
	}
	first, moved := advertises(fmt.Sprintf("https://%s.%s.agents.example.com", id, ns)), advertises("https://agents.example.com/"+id)
	first.Config, moved.Config = config("https://{id}.{namespace}.agents.example.com", cpu), config("https://agents.example.com/{id}", cpu)
	moved.Check = resource.ComposeAggregateTestCheckFunc(moved.Check, k.podsReplaced(ns, id, &pods))
	resized := advertises("https://agents.example.com/" + id)
	resized.PreConfig = func() { cpu = "30m" }
	resized.Config = config("https://agents.example.com/{id}", "30m")
	resized.ConfigPlanChecks.PreApply = append(resized.ConfigPlanChecks.PreApply,
		plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
		plancheck.ExpectKnownValue(agentAddr, setting("kubernetes.resources"),
			knownvalue.StringExact("requests: cpu=30m memory=32Mi; limits: cpu=500m memory=200Mi")),
		plancheck.ExpectKnownValue(agentAddr, setting("kubernetes.stop_grace_period"), knownvalue.StringExact("3s")))
	resized.Check = resource.ComposeAggregateTestCheckFunc(resized.Check, k.podsReplaced(ns, id, &pods))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps:                    append([]resource.TestStep{first, moved, resized}, importSteps(agentAddr, id)...),
	})
}

// TestAccKubeAgent_crashLoop: an agent whose pod crash-loops behind
// terraform's back (the token it reads from its Secret was emptied by
// hand, and the pod restarted) reads stopped, so the plan starts it again;
// apply does, with the token's value from the provider's environment, and
// the agent is healthy in a new pod.
func TestAccKubeAgent_crashLoop(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Crash Loop")
	const token = "A2A_ACC_KUBE_CRASH_TOKEN"
	t.Setenv(token, "crash-loop-token-6e0d")
	config := acc.agentAllowing(fmt.Sprintf("[agent]\nname = %q\n[auth]\nbearer_token = \"$${%s}\"", name, token), id, token)
	healthy := resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr(agentAddr, "running", "true"),
		resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
		k.checkRunning(ns, id),
	)
	var killed []string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: []resource.TestStep{
			{Config: config, Check: healthy},
			{
				PreConfig: func() {
					k.emptySecretKey(t, ns, "a2a-"+id, token)
					killed = k.killPods(t, ns, id)
					k.waitCrashing(t, ns, id)
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(healthy,
					resource.TestCheckResourceAttrWith(agentAddr, "instance", func(v string) error {
						if slices.Contains(killed, v) {
							return fmt.Errorf("the agent's instance is still the killed pod %s", v)
						}
						return nil
					}),
				),
			},
		},
	})
}

// emptySecretKey empties the value of key in Secret name, as an operator's
// kubectl edit would.
func (k *kubeCluster) emptySecretKey(t *testing.T, ns, name, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := k.cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Data[key]; !ok {
		t.Fatalf("secret %s/%s has no key %s to empty", ns, name, key)
	}
	s.Data[key] = nil
	if _, err := k.cs.CoreV1().Secrets(ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitCrashing waits until a pod of the agent has exited with an error:
// the cluster now restarts it in a loop.
func (k *kubeCluster) waitCrashing(t *testing.T, ns, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id)})
		return err == nil && slices.ContainsFunc(pods.Items, crashed), nil
	})
	if err != nil {
		t.Fatalf("no pod of agent %s crashed: %v", id, err)
	}
}

// crashed reports whether the pod's container exited with an error, or
// was restarted after it did.
func crashed(p corev1.Pod) bool {
	return slices.ContainsFunc(p.Status.ContainerStatuses, func(c corev1.ContainerStatus) bool {
		return c.State.Terminated != nil && c.State.Terminated.ExitCode != 0 || c.RestartCount > 0
	})
}

// TestAccKubeAgent_writeOnly: write-only values reach the agent through
// its Secret and appear nowhere else: not in the plan, the state, the
// state dir, nor the Deployment, its ReplicaSets or its pods, which
// kubectl get -o yaml would show to anyone who may read them.
func TestAccKubeAgent_writeOnly(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Write Only")
	const greeting, token = "kube-wo-greeting-7c1e", "kube-wo-token-52ad"
	setWriteOnlyValues(t, greeting, token)
	local := a2acli.FreePort(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: []resource.TestStep{{
			Config:           acc.writeOnlyAgent(name, woDescription, 1),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{planHoldsNone(greeting, token)}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
				acc.checkNotPersisted(greeting),
				acc.checkNotPersisted(token),
				k.checkOnlySecretHolds(ns, id, greeting, token),
				func(*terraform.State) error {
					if err := k.forward(t, ns, id, local); err != nil {
						return err
					}
					return fetchCard(fmt.Sprintf("http://127.0.0.1:%d%s", local, card.WellKnownPath), descriptionIs(greeting+" / "+token))
				},
			),
		}},
	})
}

// checkOnlySecretHolds proves that the agent's Secret holds values, so
// that they reached the cluster, and that none of its Deployment,
// ReplicaSets and pods does.
func (k *kubeCluster) checkOnlySecretHolds(ns, id string, values ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		opts := metav1.ListOptions{LabelSelector: agentSelector(id)}
		secrets, err := k.cs.CoreV1().Secrets(ns).List(ctx, opts)
		if err != nil {
			return err
		}
		lists := map[string]func() (runtime.Object, error){
			"deployments": func() (runtime.Object, error) { return k.cs.AppsV1().Deployments(ns).List(ctx, opts) },
			"replicasets": func() (runtime.Object, error) { return k.cs.AppsV1().ReplicaSets(ns).List(ctx, opts) },
			"pods":        func() (runtime.Object, error) { return k.cs.CoreV1().Pods(ns).List(ctx, opts) },
		}
		for _, v := range values {
			if len(secrets.Items) != 1 || !strings.Contains(string(secrets.Items[0].Data["env.json"]), v) {
				return fmt.Errorf("the agent's secret does not hold a write-only value, so its absence elsewhere proves nothing")
			}
		}
		for kind, list := range lists {
			l, err := list()
			if err != nil {
				return err
			}
			if meta.LenList(l) == 0 {
				return fmt.Errorf("agent %s has no %s to search", id, kind)
			}
			dump, err := json.Marshal(l)
			if err != nil {
				return err
			}
			for _, v := range values {
				if strings.Contains(string(dump), v) {
					return fmt.Errorf("the %s of agent %s show a write-only value", kind, id)
				}
			}
		}
		return nil
	}
}

// TestAccKubeAgent_failedStart: a new agent whose pods cannot run fails
// the apply with what a kubectl describe and logs would show (the reason,
// the last lines the agent wrote, the events of its pods) and leaves
// nothing behind.
func TestAccKubeAgent_failedStart(t *testing.T) {
	k := needKube(t)
	const empty = "A2A_ACC_KUBE_EMPTY_TOKEN"
	tests := []struct {
		name  string
		image string
		// want follows the agent's id in the error.
		want string
	}{
		{"exits", "", `did not start.*(` + wordsPattern("the agent exited with status") + `|CrashLoopBackOff).*removed\s+again.*` +
			`Last \d+ lines of the agent's log:.*` + empty + `.*Last \d+ events of the agent:.*` + wordsPattern("Normal Started pod/")},
		{"missing image", "localhost/terraform-provider-a2a:missing", `did not start.*ErrImageNeverPull.*removed\s+again.*` +
			wordsPattern("The agent wrote nothing to its log.") + `.*Last \d+ events of the agent:.*` + wordsPattern("Warning ErrImageNeverPull pod/")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newAccTest(t)
			ns := k.namespace(t)
			acc.adapterBlock = k.block(ns)
			if tt.image != "" {
				acc.adapterBlock = strings.Replace(acc.adapterBlock, k.image, tt.image, 1)
			}
			name := uniqueName("Kube Broken")
			id := agentconfig.Slug(name)
			broken, _ := acc.brokenAgent(name, empty, id, "2m")
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             k.checkNothingLeft(ns, id),
				Steps:                    failedCreateSteps(t, broken, `(?s)Agent `+id+` `+tt.want, k.checkNothingLeft(ns, id)),
			})
		})
	}
}
