package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/kubeload"
)

// workloadAttribute is an a2a_agent kubernetes attribute with labels team,
// the service account and priority class given.
func workloadAttribute(team, account, class string) string {
	return fmt.Sprintf(`  kubernetes = {
    labels          = { team = %q }
    annotations     = { "example.com/owner" = "the %s team" }
    service_account = %q
    node_selector   = { "kubernetes.io/os" = "linux" }
    tolerations     = [{ key = "dedicated", value = "agents", effect = "NoSchedule" }]
    priority_class  = %q
    topology_spread = { topology_key = "kubernetes.io/hostname", when_unsatisfiable = "ScheduleAnyway", max_skew = 2 }
    disruption_budget = { min_available = "1" }
    resources       = { memory_limit = "192Mi" }
    service         = { app_protocol = "kubernetes.io/h2c", annotations = { "gateway.example.com/route" = "a2a" } }
    rollout         = { max_surge = "100%%", max_unavailable = "0" }
  }`, team, team, account, class)
}

// TestAccKubeAgent_workload: an agent's kubernetes attribute reaches its
// pods and its disruption budget; an edit of its Deployment and the
// budget's deletion behind Terraform's back show in plan and apply undoes
// them; a changed label rolls the pods over in place; and
// import reads the attribute back.
func TestAccKubeAgent_workload(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Workload")
	ctx := context.Background()
	if _, err := k.cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "agents"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	class := ns + "-agents"
	if _, err := k.cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Value: 100}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k.cs.SchedulingV1().PriorityClasses().Delete(context.Background(), class, metav1.DeleteOptions{})
	})
	config := func(team string) string {
		return acc.agent(fmt.Sprintf("[agent]\nname = %q", name), workloadAttribute(team, "agents", class))
	}
	podsRun := func(team string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id) + ",team=" + team})
			if err != nil {
				return err
			}
			for _, p := range pods.Items {
				if p.DeletionTimestamp == nil && p.Spec.ServiceAccountName == "agents" && p.Spec.PriorityClassName == class &&
					p.Spec.NodeSelector["kubernetes.io/os"] == "linux" && p.Annotations["example.com/owner"] == "the "+team+" team" {
					return nil
				}
			}
			return fmt.Errorf("no pod of agent %s runs with the workload of team %s: %d pods labelled so", id, team, len(pods.Items))
		}
	}
	dropNodeSelector := func() {
		d, err := k.cs.AppsV1().Deployments(ns).Get(ctx, "a2a-"+id, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d.Spec.Template.Spec.NodeSelector = nil
		if _, err := k.cs.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := k.cs.PolicyV1().PodDisruptionBudgets(ns).Delete(ctx, "a2a-"+id, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	budgetBack := func(*terraform.State) error {
		pdb, err := k.cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "a2a-"+id, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("the agent's disruption budget: %w", err)
		}
		if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.String() != "1" {
			return fmt.Errorf("the agent's disruption budget is %+v, want min_available 1", pdb.Spec)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: append([]resource.TestStep{
			{
				Config: config("search"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "health", "healthy"),
					resource.TestCheckResourceAttr(agentAddr, "runtime_settings.kubernetes.node_selector", "kubernetes.io/os=linux"),
					resource.TestCheckResourceAttr(agentAddr, "runtime_settings.kubernetes.labels", "team=search"),
					resource.TestCheckResourceAttr(agentAddr, "runtime_settings.kubernetes.topology_spread", "kubernetes.io/hostname ScheduleAnyway max_skew=2"),
					resource.TestCheckResourceAttr(agentAddr, "runtime_settings.kubernetes.disruption_budget", "min_available=1"),
					resource.TestCheckResourceAttr(agentAddr, "runtime_settings.kubernetes.resources", "requests: cpu=10m memory=32Mi; limits: cpu=500m memory=192Mi"),
					resource.TestCheckResourceAttr(agentAddr, "runtime_settings.kubernetes.service", "app_protocol=kubernetes.io/h2c; annotations: gateway.example.com/route=a2a"),
					resource.TestCheckResourceAttr(agentAddr, "runtime_settings.kubernetes.rollout", "max_surge=100% max_unavailable=0"),
					podsRun("search"),
				),
			},
			{
				PreConfig: dropNodeSelector,
				Config:    config("search"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, setting("kubernetes.node_selector"), knownvalue.StringExact("kubernetes.io/os=linux")),
					plancheck.ExpectKnownValue(agentAddr, setting("kubernetes.disruption_budget"), knownvalue.StringExact("min_available=1")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(podsRun("search"), budgetBack),
			},
			{
				Config: config("ranking"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, setting("kubernetes.labels"), knownvalue.StringExact("team=ranking")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(podsRun("ranking"), k.checkPods(ns, id, 1)),
			},
		}, importSteps(agentAddr, id)...),
	})
}

// TestAccKubeAgent_workloadRefused: a kubernetes attribute the API server
// would refuse, or one that would change the pods' security or, without
// the provider's allow_system_placement, put them on the control plane or
// in a system priority class, is refused at plan, at the attribute.
func TestAccKubeAgent_workloadRefused(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	_, name, _ := k.agentTest(t, acc, "Kube Workload Refused")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acc.agent(fmt.Sprintf("[agent]\nname = %q", name),
				`  kubernetes = {
    labels         = { "a2a/agent-id" = "other" }
    annotations    = { "container.apparmor.security.beta.kubernetes.io/agent" = "unconfined" }
    node_selector  = { "node-role.kubernetes.io/control-plane" = "" }
    priority_class = "system-node-critical"
    tolerations    = [{ key = "dedicated", operator = "Exists", value = "agents" }, { key = "node-role.kubernetes.io/master", operator = "Exists" }]
  }`),
			PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)kubernetes\.labels:\s+key\s+"a2a/agent-id".*provider's\s+own` +
				`.*kubernetes\.annotations:\s+key\s+"container\.apparmor\.security\.beta\.kubernetes\.io/agent"\s+sets\s+the\s+pods'\s+security` +
				`.*kubernetes\.node_selector:\s+key\s+"node-role\.kubernetes\.io/control-plane".*allow_system_placement` +
				`.*kubernetes\.priority_class:\s+"system-node-critical".*allow_system_placement` +
				`.*kubernetes\.tolerations\[0\]:\s+operator\s+"Exists"\s+takes\s+no\s+value` +
				`.*kubernetes\.tolerations\[1\]:\s+key\s+"node-role\.kubernetes\.io/master".*allow_system_placement`),
		}},
	})
}

// TestAccKubeAgent_autoscaling: an autoscaled agent starts with the
// autoscaler's least pods and has its HorizontalPodAutoscaler; under a load
// of calls the autoscaler adds pods, which read back into replicas with an
// empty plan, and a
// config change rolls the agent over keeping it; a deleted autoscaler is
// drift that apply puts back; import reads the attribute back.
func TestAccKubeAgent_autoscaling(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Autoscaled")
	ctx := context.Background()
	config := func(description string) string {
		return acc.agent(fmt.Sprintf("[agent]\nname = %q\ndescription = %q", name, description),
			`  kubernetes = { autoscaling = { min_replicas = 2, max_replicas = 3, target_cpu_utilization = 60 } }`)
	}
	// A load of calls has the autoscaler, which reads the pods' CPU from
	// the cluster's metrics API, give the agent its most pods; it scales
	// down no sooner than five minutes after, so they stay for the steps
	// that follow.
	loadUntilScaled := func() {
		loadCtx, cancel := context.WithTimeout(ctx, 4*time.Minute)
		defer cancel()
		calls, err := kubeload.UntilScaled(loadCtx, k.cfg, k.cs, ns, "a2a-"+id, 8080, 3)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("the autoscaler gave the agent its 3 pods after %d calls", calls)
	}
	autoscaler := func(*terraform.State) error {
		hpa, err := k.cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "a2a-"+id, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("the agent's autoscaler: %w", err)
		}
		if *hpa.Spec.MinReplicas != 2 || hpa.Spec.MaxReplicas != 3 || hpa.Spec.ScaleTargetRef.Name != "a2a-"+id {
			return fmt.Errorf("the agent's autoscaler is %+v, want 2 to 3 pods of its Deployment", hpa.Spec)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: append([]resource.TestStep{
			{
				Config: acc.agent(fmt.Sprintf("[agent]\nname = %q", name),
					"  replicas = 2\n  kubernetes = { autoscaling = { min_replicas = 1, max_replicas = 2, target_cpu_utilization = 60 } }"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Replicas set with autoscaling`),
			},
			{
				Config: config("first"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "replicas", "2"),
					resource.TestCheckResourceAttr(agentAddr, "runtime_settings.kubernetes.autoscaling", "min=2 max=3 cpu=60% of Deployment/a2a-"+id),
					k.checkPods(ns, id, 2), autoscaler,
				),
			},
			// The autoscaler adds pods, and the plan stays empty.
			{PreConfig: loadUntilScaled, Config: config("first"), PlanOnly: true},
			{
				Config: config("second"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("replicas"), knownvalue.Int64Exact(3)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(resource.TestCheckResourceAttr(agentAddr, "health", "healthy"), k.checkPods(ns, id, 3)),
			},
			{
				PreConfig: func() {
					if err := k.cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Delete(ctx, "a2a-"+id, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("second"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
				}},
				Check: autoscaler,
			},
		}, importSteps(agentAddr, id)...),
	})
}

// TestAccKubeAgent_agentDefaults: the provider block's agent_defaults shape
// every agent, the agent's own settings winning; a changed default plans an
// update of the agents it reaches and rolls their pods over; a default no
// agent could run with is refused at its attribute.
func TestAccKubeAgent_agentDefaults(t *testing.T) {
	acc := newAccTest(t)
	k := needKube(t)
	ns, name, id := k.agentTest(t, acc, "Kube Defaults")
	ctx := context.Background()
	config := func(defaults string) string {
		acc.adapterBlock = strings.TrimSuffix(k.block(ns), "  }\n") + "    agent_defaults = " + defaults + "\n  }\n"
		return acc.agent(fmt.Sprintf("[agent]\nname = %q", name), `  kubernetes = { labels = { team = "search" } }`)
	}
	labelled := func(env string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: agentSelector(id) + ",team=search,env=" + env})
			if err != nil {
				return err
			}
			for _, p := range pods.Items {
				if p.DeletionTimestamp == nil && p.Spec.NodeSelector["kubernetes.io/os"] == "linux" {
					return nil
				}
			}
			return fmt.Errorf("no pod of agent %s is labelled env=%s and team=search with the default node selector", id, env)
		}
	}
	defaults := func(env string) string {
		return fmt.Sprintf(`{ labels = { env = %q, team = "platform" }, node_selector = { "kubernetes.io/os" = "linux" } }`, env)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             k.checkNothingLeft(ns, id),
		Steps: []resource.TestStep{
			{
				Config:      config(`{ labels = { "a2a/scope" = "other" } }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)kubernetes\.agent_defaults\.labels:\s+key\s+"a2a/scope"`),
			},
			{
				Config: config(defaults("prod")),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(agentAddr, "runtime_settings.kubernetes.labels", "env=prod,team=search"),
					labelled("prod"),
				),
			},
			{
				Config: config(defaults("staging")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, setting("kubernetes.labels"), knownvalue.StringExact("env=staging,team=search")),
				}},
				Check: labelled("staging"),
			},
		},
	})
}
