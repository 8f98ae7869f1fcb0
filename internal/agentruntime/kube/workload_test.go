package kube

import (
	"context"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/kubeload"
)

func TestCheckWorkload(t *testing.T) {
	seconds := int64(30)
	tests := []struct {
		name  string
		w     agentruntime.Workload
		field string // of the one problem wanted; "" for none
		want  string
	}{
		{"valid", agentruntime.Workload{
			Labels: map[string]string{"team": "search", "example.com/tier": "gold"}, Annotations: map[string]string{"note": "any value at all: ok"},
			ServiceAccount: "agents", NodeSelector: map[string]string{"kubernetes.io/os": "linux"}, PriorityClass: "agents-high",
			Tolerations: []agentruntime.Toleration{{Key: "dedicated", Value: "agents", Effect: "NoExecute", Seconds: &seconds}, {Key: "dedicated", Operator: "Exists"}},
		}, "", ""},
		{"label key", agentruntime.Workload{Labels: map[string]string{"bad key": "x"}}, "labels", `key "bad key"`},
		{"label value", agentruntime.Workload{Labels: map[string]string{"team": "not a value"}}, "labels", `value "not a value" of key "team"`},
		{"reserved label", agentruntime.Workload{Labels: map[string]string{"a2a/agent-id": "other"}}, "labels", "the provider's own"},
		{"reserved annotation", agentruntime.Workload{Annotations: map[string]string{"a2a/endpoint": "x"}}, "annotations", "the provider's own"},
		{"managed-by label", agentruntime.Workload{Labels: map[string]string{"app.kubernetes.io/managed-by": "me"}}, "labels", "the provider's own"},
		{"annotations too large", agentruntime.Workload{Annotations: map[string]string{"big": strings.Repeat("x", annotationBudget)}}, "annotations", "bytes in all"},
		{"node selector", agentruntime.Workload{NodeSelector: map[string]string{"zone": "a b"}}, "node_selector", `value "a b"`},
		{"service account", agentruntime.Workload{ServiceAccount: "Agents_SA"}, "service_account", `"Agents_SA"`},
		{"priority class", agentruntime.Workload{PriorityClass: "-high"}, "priority_class", `"-high"`},
		{"operator", agentruntime.Workload{Tolerations: []agentruntime.Toleration{{Key: "k", Operator: "In"}}}, "tolerations", `operator "In" is not one of`},
		{"exists with a value", agentruntime.Workload{Tolerations: []agentruntime.Toleration{{Key: "k", Operator: "Exists", Value: "v"}}}, "tolerations", "takes no value"},
		{"no key, equal", agentruntime.Workload{Tolerations: []agentruntime.Toleration{{Value: "v"}}}, "tolerations", "without a key"},
		{"effect", agentruntime.Workload{Tolerations: []agentruntime.Toleration{{Key: "k", Effect: "NoRun"}}}, "tolerations", `effect "NoRun"`},
		{"seconds without NoExecute", agentruntime.Workload{Tolerations: []agentruntime.Toleration{{Key: "k", Effect: "NoSchedule", Seconds: &seconds}}}, "tolerations", "NoExecute"},
		{"spread", agentruntime.Workload{TopologySpread: &agentruntime.TopologySpread{TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: "DoNotSchedule", MaxSkew: 2}}, "", ""},
		{"spread key", agentruntime.Workload{TopologySpread: &agentruntime.TopologySpread{TopologyKey: "no key", WhenUnsatisfiable: "ScheduleAnyway", MaxSkew: 1}}, "topology_spread", `topology_key "no key"`},
		{"spread action", agentruntime.Workload{TopologySpread: &agentruntime.TopologySpread{TopologyKey: "zone", WhenUnsatisfiable: "Maybe", MaxSkew: 1}}, "topology_spread", `when_unsatisfiable "Maybe"`},
		{"spread skew", agentruntime.Workload{TopologySpread: &agentruntime.TopologySpread{TopologyKey: "zone", WhenUnsatisfiable: "ScheduleAnyway"}}, "topology_spread", "max_skew 0"},
		{"budget", agentruntime.Workload{DisruptionBudget: &agentruntime.DisruptionBudget{MinAvailable: "50%"}}, "", ""},
		{"budget of both", agentruntime.Workload{DisruptionBudget: &agentruntime.DisruptionBudget{MinAvailable: "1", MaxUnavailable: "1"}}, "disruption_budget", "exactly one"},
		{"budget of neither", agentruntime.Workload{DisruptionBudget: &agentruntime.DisruptionBudget{}}, "disruption_budget", "exactly one"},
		{"budget value", agentruntime.Workload{DisruptionBudget: &agentruntime.DisruptionBudget{MaxUnavailable: "one"}}, "disruption_budget", `max_unavailable "one"`},
		{"budget percent", agentruntime.Workload{DisruptionBudget: &agentruntime.DisruptionBudget{MinAvailable: "150%"}}, "disruption_budget", `min_available "150%"`},
		{"service", agentruntime.Workload{Service: &agentruntime.Service{AppProtocol: "kubernetes.io/h2c", Annotations: map[string]string{"gateway.example.com/route": "a2a"}}}, "", ""},
		{"service protocol", agentruntime.Workload{Service: &agentruntime.Service{AppProtocol: "h2c over tls"}}, "service", `app_protocol "h2c over tls"`},
		{"service annotation", agentruntime.Workload{Service: &agentruntime.Service{Annotations: map[string]string{"a2a/port": "1"}}}, "service", "the provider's own"},
		{"autoscaling", agentruntime.Workload{Autoscaling: &agentruntime.Autoscaling{MinReplicas: 2, MaxReplicas: 5, TargetCPUUtilization: 70}}, "", ""},
		{"autoscaling bounds", agentruntime.Workload{Autoscaling: &agentruntime.Autoscaling{MinReplicas: 3, MaxReplicas: 2, TargetCPUUtilization: 70}}, "autoscaling", "below min_replicas"},
		{"autoscaling least", agentruntime.Workload{Autoscaling: &agentruntime.Autoscaling{MaxReplicas: 2, TargetCPUUtilization: 70}}, "autoscaling", "min_replicas 0"},
		{"autoscaling target", agentruntime.Workload{Autoscaling: &agentruntime.Autoscaling{MinReplicas: 1, MaxReplicas: 2}}, "autoscaling", "target_cpu_utilization 0"},
		{"rollout", agentruntime.Workload{Rollout: &agentruntime.Rollout{MaxSurge: "25%", MaxUnavailable: "0"}}, "", ""},
		{"rollout stuck", agentruntime.Workload{Rollout: &agentruntime.Rollout{MaxSurge: "0", MaxUnavailable: "0%"}}, "rollout", "both zero"},
		{"rollout value", agentruntime.Workload{Rollout: &agentruntime.Rollout{MaxSurge: "two", MaxUnavailable: "0"}}, "rollout", `max_surge "two"`},
		{"resources", agentruntime.Workload{Resources: agentruntime.Resources{CPURequest: "100m", MemoryLimit: "1Gi"}}, "", ""},
		{"resources quantity", agentruntime.Workload{Resources: agentruntime.Resources{MemoryRequest: "lots"}}, "resources", `memory_request "lots" is not a quantity`},
		{"resources over the provider's limit", agentruntime.Workload{Resources: agentruntime.Resources{CPURequest: "2"}}, "resources", "cpu request 2 is above the cpu limit 500m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found := (&Runtime{}).CheckWorkload(tt.w)
			if tt.field == "" {
				if len(found) != 0 {
					t.Errorf("problems %+v, want none", found)
				}
				return
			}
			if len(found) != 1 || found[0].Field != tt.field || !strings.Contains(found[0].Message, tt.want) {
				t.Errorf("problems %+v, want one of %s saying %q", found, tt.field, tt.want)
			}
		})
	}
}

// TestCheckWorkloadSecurity: annotations that would change the pods'
// security are refused whatever the provider allows; system priority
// classes and control-plane placement are refused unless it allows system
// placement, and each problem names the key and says how to opt in.
func TestCheckWorkloadSecurity(t *testing.T) {
	annotated := func(key string) agentruntime.Workload {
		return agentruntime.Workload{Annotations: map[string]string{key: "unconfined"}}
	}
	tolerating := func(tols ...agentruntime.Toleration) agentruntime.Workload {
		return agentruntime.Workload{Tolerations: tols}
	}
	const optIn = "allow_system_placement = true"
	tests := []struct {
		name   string
		w      agentruntime.Workload
		system bool   // the provider allows system placement
		field  string // of the one problem wanted; "" for none
		want   string
	}{
		{"apparmor", annotated("container.apparmor.security.beta.kubernetes.io/agent"), true, "annotations",
			`key "container.apparmor.security.beta.kubernetes.io/agent" sets the pods' security, which the provider sets itself`},
		{"seccomp of the pod", annotated("seccomp.security.alpha.kubernetes.io/pod"), true, "annotations", "RuntimeDefault"},
		{"seccomp of a container", annotated("container.seccomp.security.alpha.kubernetes.io/agent"), true, "annotations", "Remove the key"},
		{"unsafe sysctls", annotated("security.alpha.kubernetes.io/unsafe-sysctls"), true, "annotations", "unsafe-sysctls"},
		{"apparmor of a policy", annotated("apparmor.security.beta.kubernetes.io/allowedProfileNames"), true, "annotations", "allowedProfileNames"},
		{"psp", annotated("kubernetes.io/psp"), true, "annotations", `"kubernetes.io/psp"`},
		{"cri-o", annotated("io.kubernetes.cri-o.userns-mode"), true, "annotations", "userns-mode"},
		{"kata", annotated("io.katacontainers.config.hypervisor.path"), true, "annotations", "hypervisor"},
		{"gvisor", annotated("dev.gvisor.spec.rootfs.overlay"), true, "annotations", "gvisor"},
		{"safe to evict", annotated("cluster-autoscaler.kubernetes.io/safe-to-evict"), false, "", ""},
		{"a security team's own", annotated("security.example.com/owner"), false, "", ""},
		{"a domain ending like kubernetes.io", annotated("security.notkubernetes.io/owner"), false, "", ""},
		{"pod security of a namespace", annotated("pod-security.kubernetes.io/enforce"), false, "", ""},
		{"security annotation on the service", agentruntime.Workload{Service: &agentruntime.Service{
			Annotations: map[string]string{"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}}}, false, "", ""},

		{"system node critical", agentruntime.Workload{PriorityClass: "system-node-critical"}, false, "priority_class",
			`"system-node-critical" is one of the priority classes Kubernetes reserves`},
		{"system cluster critical", agentruntime.Workload{PriorityClass: "system-cluster-critical"}, false, "priority_class", optIn},
		{"system priority allowed", agentruntime.Workload{PriorityClass: "system-cluster-critical"}, true, "", ""},
		{"priority of its own", agentruntime.Workload{PriorityClass: "systems-high"}, false, "", ""},

		{"control-plane taint", tolerating(agentruntime.Toleration{Key: "node-role.kubernetes.io/control-plane", Operator: "Exists", Effect: "NoSchedule"}),
			false, "tolerations", `key "node-role.kubernetes.io/control-plane" is the taint of the cluster's control-plane nodes`},
		{"master taint", tolerating(agentruntime.Toleration{Key: "dedicated", Value: "agents"}, agentruntime.Toleration{Key: "node-role.kubernetes.io/master"}),
			false, "tolerations", optIn},
		{"every taint", tolerating(agentruntime.Toleration{Operator: "Exists"}), false, "tolerations", "tolerates every taint"},
		{"every NoSchedule taint", tolerating(agentruntime.Toleration{Operator: "Exists", Effect: "NoSchedule"}), false, "tolerations", optIn},
		{"control-plane taint allowed", tolerating(agentruntime.Toleration{Key: "node-role.kubernetes.io/control-plane", Operator: "Exists"}), true, "", ""},
		{"every taint allowed", tolerating(agentruntime.Toleration{Operator: "Exists"}), true, "", ""},
		{"an invalid toleration is told what is invalid", tolerating(agentruntime.Toleration{Key: "node-role.kubernetes.io/master", Operator: "In"}),
			false, "tolerations", `operator "In"`},

		{"control-plane selector", agentruntime.Workload{NodeSelector: map[string]string{"node-role.kubernetes.io/control-plane": ""}}, false, "node_selector",
			`key "node-role.kubernetes.io/control-plane" selects the cluster's control-plane nodes`},
		{"etcd selector", agentruntime.Workload{NodeSelector: map[string]string{"node-role.kubernetes.io/etcd": "true"}}, false, "node_selector", optIn},
		{"control-plane selector allowed", agentruntime.Workload{NodeSelector: map[string]string{"node-role.kubernetes.io/master": ""}}, true, "", ""},
		{"worker selector", agentruntime.Workload{NodeSelector: map[string]string{"node-role.kubernetes.io/worker": ""}}, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, check := range []struct {
				name  string
				found []agentruntime.WorkloadProblem
			}{
				{"CheckWorkload", (&Runtime{opts: Options{AllowSystemPlacement: tt.system}}).CheckWorkload(tt.w)},
				{"CheckDefaults", CheckDefaults(tt.w, tt.system)},
			} {
				found := check.found
				switch {
				case tt.field == "" && len(found) != 0:
					t.Errorf("%s: problems %+v, want none", check.name, found)
				case tt.field != "" && (len(found) != 1 || found[0].Field != tt.field || !strings.Contains(found[0].Message, tt.want)):
					t.Errorf("%s: problems %+v, want one of %s saying %q", check.name, found, tt.field, tt.want)
				}
			}
		})
	}
}

// TestProvisionRefusesWorkload: a spec whose workload the plan would have
// refused is refused by the runtime as well, before it reaches the
// cluster, so that no caller but the provider's plan loosens the pods.
func TestProvisionRefusesWorkload(t *testing.T) {
	r := &Runtime{}
	spec := agentruntime.Spec{Config: agentConfig("Refused Workload"),
		Workload: agentruntime.Workload{Annotations: map[string]string{"container.apparmor.security.beta.kubernetes.io/agent": "unconfined"}}}
	placed := agentruntime.Spec{Config: agentConfig("Refused Workload"),
		Workload: agentruntime.Workload{PriorityClass: "system-node-critical"}}
	for name, call := range map[string]func(agentruntime.Spec) error{
		"Check":     func(s agentruntime.Spec) error { _, err := r.Check(t.Context(), s); return err },
		"Provision": func(s agentruntime.Spec) error { _, err := r.Provision(t.Context(), s); return err },
		"Roll":      func(s agentruntime.Spec) error { _, err := r.Roll(t.Context(), s); return err },
	} {
		for _, tt := range []struct {
			spec agentruntime.Spec
			want string
		}{{spec, "kubernetes.annotations: key \"container.apparmor"}, {placed, "kubernetes.priority_class"}} {
			err := call(tt.spec)
			if !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s = %v, want an invalid config saying %q", name, err, tt.want)
			}
		}
	}
}

// TestWorkloadShapesTheAgent provisions an agent with a workload on the
// cluster: its pods run with it, its objects carry the labels, Get reads
// back the settings planned and the workload as given, a change made
// behind the adapter's back reads as other settings, and provisioning again
// and a restart keep the workload.
func TestWorkloadShapesTheAgent(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	ctx := testContext(t)
	if _, err := rt.cs.CoreV1().ServiceAccounts(opts.Namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "agents"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	class := opts.Namespace + "-agents"
	if _, err := rt.cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Value: 1000}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = rt.cs.SchedulingV1().PriorityClasses().Delete(testContext(t), class, metav1.DeleteOptions{})
	})
	w := agentruntime.Workload{
		Labels: map[string]string{"team": "search"}, Annotations: map[string]string{"example.com/owner": "search team"},
		ServiceAccount: "agents", NodeSelector: map[string]string{"kubernetes.io/os": "linux"}, PriorityClass: class,
		Tolerations: []agentruntime.Toleration{{Key: "dedicated", Operator: "Equal", Value: "agents", Effect: "NoSchedule"}},
		Service:     &agentruntime.Service{AppProtocol: "kubernetes.io/h2c", Annotations: map[string]string{"gateway.example.com/route": "a2a"}},
		Resources:   agentruntime.Resources{MemoryLimit: "192Mi"},
		Rollout:     &agentruntime.Rollout{MaxSurge: "50%", MaxUnavailable: "0"},
	}
	raw := agentConfig("Kube Workload")
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	a := startedAgent(t, rt, agentruntime.Spec{Config: raw, Workload: w})
	pods, err := rt.pods(ctx, "test", a.ID)
	if err != nil || len(pods) != 1 {
		t.Fatalf("pods %v, %v; want one", pods, err)
	}
	pod := pods[0]
	if pod.Labels["team"] != "search" || pod.Annotations["example.com/owner"] != "search team" || pod.Spec.ServiceAccountName != "agents" ||
		pod.Spec.NodeSelector["kubernetes.io/os"] != "linux" || pod.Spec.PriorityClassName != class || pod.Spec.Priority == nil || *pod.Spec.Priority != 1000 {
		t.Errorf("the pod runs with labels %v, annotations %v, account %q, node selector %v, class %q; want the workload's",
			pod.Labels, pod.Annotations, pod.Spec.ServiceAccountName, pod.Spec.NodeSelector, pod.Spec.PriorityClassName)
	}
	svc, err := rt.cs.CoreV1().Services(opts.Namespace).Get(ctx, rt.objectName(a.ID), metav1.GetOptions{})
	if err != nil || svc.Labels["team"] != "search" || svc.Annotations["example.com/owner"] != "search team" ||
		svc.Annotations["gateway.example.com/route"] != "a2a" || svc.Spec.Ports[0].AppProtocol == nil || *svc.Spec.Ports[0].AppProtocol != "kubernetes.io/h2c" {
		t.Errorf("the Service carries labels %v, annotations %v and ports %+v (%v), want the workload's", svc.Labels, svc.Annotations, svc.Spec.Ports, err)
	}
	if limit := pod.Spec.Containers[0].Resources.Limits.Memory().String(); limit != "192Mi" {
		t.Errorf("the pod's memory limit is %s, want the workload's 192Mi", limit)
	}
	planned := rt.AgentSettings(cfg, w, 0)
	got := getAgent(t, rt, a.ID)
	if !maps.Equal(got.Settings, planned) || !reflect.DeepEqual(got.Workload, w) {
		t.Fatalf("Get read back settings %v and workload %+v; want %v and %+v", got.Settings, got.Workload, planned, w)
	}
	if planned[settingNodeSelector] != "kubernetes.io/os=linux" || planned[settingTolerations] == "" {
		t.Errorf("planned settings %v do not name the workload", planned)
	}

	// kubectl edit: the node selector removed from the Deployment.
	d, err := rt.cs.AppsV1().Deployments(opts.Namespace).Get(ctx, rt.objectName(a.ID), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Spec.NodeSelector = nil
	if _, err := rt.cs.AppsV1().Deployments(opts.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if drifted := getAgent(t, rt, a.ID).Settings; maps.Equal(drifted, planned) {
		t.Fatalf("an edited node selector reads back as planned: %v", drifted)
	}
	svc.Spec.Ports[0].AppProtocol = nil
	if _, err := rt.cs.CoreV1().Services(opts.Namespace).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if drifted := getAgent(t, rt, a.ID).Settings; drifted[settingService] == planned[settingService] {
		t.Fatalf("an edited Service reads back as planned: %v", drifted[settingService])
	}
	if _, err := rt.Provision(ctx, agentruntime.Spec{Config: raw, Workload: w}); err != nil {
		t.Fatal(err)
	}
	if healed := getAgent(t, rt, a.ID).Settings; !maps.Equal(healed, planned) {
		t.Errorf("provisioned again, the agent reads back %v, want %v", healed, planned)
	}
	if err := rt.Restart(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if after := getAgent(t, rt, a.ID); !maps.Equal(after.Settings, planned) || !reflect.DeepEqual(after.Workload, w) {
		t.Errorf("restarted, the agent reads back %v and %+v, want %v and %+v", after.Settings, after.Workload, planned, w)
	}
}

// startedAgent provisions spec, starts the agent and waits until it is
// healthy; the agent is deprovisioned when the test ends.
func startedAgent(t *testing.T, rt *Runtime, spec agentruntime.Spec) agentruntime.Agent {
	t.Helper()
	a, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	if err := rt.Start(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, rt, a.ID)
	return a
}

// waitHealthy waits until the agent's card answers.
func waitHealthy(t *testing.T, rt *Runtime, id string) {
	t.Helper()
	var last agentruntime.Agent
	err := wait.PollUntilContextTimeout(testContext(t), 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		last, err = rt.Get(ctx, id)
		return err == nil && last.Health == agentruntime.HealthHealthy, nil
	})
	if err != nil {
		t.Fatalf("agent %s is not healthy: %s, %v", id, last.Health, last.CardError)
	}
}

// TestSpreadAndBudget: an agent of two or more pods spreads them across
// nodes and has a budget of one pod disrupted at a time, which a deleted
// budget reads as drift of and provisioning puts back; a budget of the
// workload's own replaces it, and an agent of one pod has none.
func TestSpreadAndBudget(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	ctx := testContext(t)
	raw := agentConfig("Kube Budget")
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	provision := func(replicas int, w agentruntime.Workload) agentruntime.Agent {
		t.Helper()
		a, err := rt.Provision(ctx, agentruntime.Spec{Config: raw, Replicas: replicas, Workload: w})
		if err != nil {
			t.Fatal(err)
		}
		if got, planned := getAgent(t, rt, a.ID).Settings, rt.AgentSettings(cfg, w, replicas); !maps.Equal(got, planned) {
			t.Fatalf("%d replicas, workload %+v: read back %v, planned %v", replicas, w, got, planned)
		}
		return a
	}
	a := provision(2, agentruntime.Workload{})
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	settings := getAgent(t, rt, a.ID).Settings
	if settings[settingTopologySpread] != "kubernetes.io/hostname ScheduleAnyway max_skew=1" || settings[settingDisruptionBudget] != "max_unavailable=1" {
		t.Errorf("two replicas read back spread %q and budget %q, want the defaults", settings[settingTopologySpread], settings[settingDisruptionBudget])
	}
	pdbs := rt.cs.PolicyV1().PodDisruptionBudgets(opts.Namespace)
	if err := pdbs.Delete(ctx, rt.objectName(a.ID), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := getAgent(t, rt, a.ID).Settings[settingDisruptionBudget]; ok {
		t.Error("a deleted budget still reads back")
	}
	provision(2, agentruntime.Workload{})
	provision(2, agentruntime.Workload{DisruptionBudget: &agentruntime.DisruptionBudget{MinAvailable: "50%"}})
	if pdb, err := pdbs.Get(ctx, rt.objectName(a.ID), metav1.GetOptions{}); err != nil || pdb.Spec.MinAvailable.String() != "50%" || pdb.Spec.MaxUnavailable != nil {
		t.Errorf("the budget is %+v (%v), want min_available 50%%", pdb, err)
	}
	provision(1, agentruntime.Workload{})
	if _, err := pdbs.Get(ctx, rt.objectName(a.ID), metav1.GetOptions{}); err == nil {
		t.Error("an agent of one pod still has a budget")
	}
	if err := rt.Deprovision(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	provision(3, agentruntime.Workload{})
	if err := rt.Deprovision(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if list, err := pdbs.List(ctx, metav1.ListOptions{LabelSelector: labelAgentID + "=" + a.ID}); err != nil || len(list.Items) != 0 {
		t.Errorf("deprovisioned, the agent leaves budgets %v (%v)", list, err)
	}
}

// TestAutoscaledAgent: an autoscaled agent starts with the autoscaler's
// least pods and gets a HorizontalPodAutoscaler of its bounds; under a load
// of calls the autoscaler, reading the pods' CPU from the cluster's metrics
// API, gives it its most pods, which is the count Get reads and that
// provisioning and rolling keep; without autoscaling again, the autoscaler
// goes and the agent runs the pods asked for.
func TestAutoscaledAgent(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	ctx := testContext(t)
	raw := agentConfig("Kube Autoscaled")
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	w := agentruntime.Workload{Autoscaling: &agentruntime.Autoscaling{MinReplicas: 2, MaxReplicas: 3, TargetCPUUtilization: 60}}
	spec := agentruntime.Spec{Config: raw, Workload: w}
	a := startedAgent(t, rt, spec)
	hpas := rt.cs.AutoscalingV2().HorizontalPodAutoscalers(opts.Namespace)
	hpa, err := hpas.Get(ctx, rt.objectName(a.ID), metav1.GetOptions{})
	if err != nil || *hpa.Spec.MinReplicas != 2 || hpa.Spec.MaxReplicas != 3 || hpa.Spec.ScaleTargetRef.Name != rt.objectName(a.ID) ||
		*hpa.Spec.Metrics[0].Resource.Target.AverageUtilization != 60 {
		t.Fatalf("the autoscaler is %+v (%v), want 2 to 3 pods at 60%% CPU of the agent's Deployment", hpa, err)
	}
	got := getAgent(t, rt, a.ID)
	if planned := rt.AgentSettings(cfg, w, 0); got.Replicas != 2 || !maps.Equal(got.Settings, planned) {
		t.Fatalf("Get = %d replicas, settings %v; want 2 and %v", got.Replicas, got.Settings, planned)
	}

	// The autoscaler scales down no sooner than five minutes after it
	// last wanted more pods: the three it gives stay while the test runs.
	loadCtx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	calls, err := kubeload.UntilScaled(loadCtx, rt.rest, rt.cs, opts.Namespace, rt.objectName(a.ID), a.Port, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the autoscaler gave the agent its 3 pods after %d calls", calls)
	waitPods(t, rt, a.ID, 3)
	if _, err := rt.Provision(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if got := getAgent(t, rt, a.ID); got.Replicas != 3 {
		t.Errorf("provisioned again, the agent runs %d pods, want the autoscaler's 3", got.Replicas)
	}
	rolled := spec
	rolled.Config = agentConfig("Kube Autoscaled", "# rolled")
	if _, err := rt.Roll(ctx, rolled); err != nil {
		t.Fatal(err)
	}
	if got := getAgent(t, rt, a.ID); got.Replicas != 3 || got.Health != agentruntime.HealthHealthy {
		t.Errorf("rolled, the agent runs %d pods and reads %s, want the autoscaler's 3, healthy", got.Replicas, got.Health)
	}
	if _, err := rt.Provision(ctx, agentruntime.Spec{Config: rolled.Config, Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := hpas.Get(ctx, rt.objectName(a.ID), metav1.GetOptions{}); err == nil {
		t.Error("without autoscaling the agent still has an autoscaler")
	}
	if got := getAgent(t, rt, a.ID); got.Replicas != 1 {
		t.Errorf("without autoscaling the agent runs %d pods, want 1", got.Replicas)
	}
}

func getAgent(t *testing.T, rt *Runtime, id string) agentruntime.Agent {
	t.Helper()
	a, err := rt.Get(testContext(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
