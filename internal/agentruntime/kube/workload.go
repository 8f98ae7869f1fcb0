package kube

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
)

// annotationWorkload records, on the Deployment, the workload the agent was
// provisioned with, as given: a restart builds the agent again from it, and
// an import reads it back.
const annotationWorkload = "a2a/workload"

// The settings the workload sets, as AgentSettings and Agent.Settings name
// them: after the agent's kubernetes attribute that sets them. Each is read
// off the pod template, so that one changed behind the provider's back is
// drift, and each shows only when set, so that agents without a workload
// plan the settings they had.
const (
	settingLabels         = "kubernetes.labels"
	settingAnnotations    = "kubernetes.annotations"
	settingServiceAccount = "kubernetes.service_account"
	settingNodeSelector   = "kubernetes.node_selector"
	settingTolerations    = "kubernetes.tolerations"
	settingPriorityClass  = "kubernetes.priority_class"
	settingTopologySpread = "kubernetes.topology_spread"
	// settingDisruptionBudget is read off the agent's PodDisruptionBudget,
	// settingService off its Service (the app protocol and the annotations
	// the workload names, not those others put there).
	settingDisruptionBudget = "kubernetes.disruption_budget"
	settingService          = "kubernetes.service"
	// settingAutoscaling is read off the agent's HorizontalPodAutoscaler.
	settingAutoscaling = "kubernetes.autoscaling"
	// settingRollout is read off the Deployment's strategy.
	settingRollout = "kubernetes.rollout"
)

// rollingUpdate is the Deployment's rolling update: rollout's bounds, else
// one pod added at a time and none taken away before its replacement is
// available.
func rollingUpdate(rollout *agentruntime.Rollout) *appsv1.RollingUpdateDeployment {
	if rollout == nil {
		return &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr(intstr.FromInt32(0)), MaxSurge: ptr(intstr.FromInt32(1))}
	}
	return &appsv1.RollingUpdateDeployment{MaxUnavailable: budgetValue(rollout.MaxUnavailable), MaxSurge: budgetValue(rollout.MaxSurge)}
}

// formatRollout writes the Deployment's rolling update as settings show it.
func formatRollout(d *appsv1.Deployment) string {
	u := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || u == nil || u.MaxSurge == nil || u.MaxUnavailable == nil {
		return string(d.Spec.Strategy.Type)
	}
	return "max_surge=" + u.MaxSurge.String() + " max_unavailable=" + u.MaxUnavailable.String()
}

// sideObjects are the agent's objects besides its Deployment whose
// settings are read back; nil for one it does not have.
type sideObjects struct {
	budget     *policyv1.PodDisruptionBudget
	service    *corev1.Service
	autoscaler *autoscalingv2.HorizontalPodAutoscaler
}

// sideObjects reads those of the agent of Deployment d that its recorded
// workload and replicas say it has: an agent without a budget, an
// autoscaler or Service settings costs no read of them.
func (r *Runtime) sideObjects(ctx context.Context, op, id string, d *appsv1.Deployment) (sideObjects, error) {
	var side sideObjects
	var err error
	w := r.effectiveWorkload(d)
	if budgetOf(w, mostReplicas(w, replicasOf(d))) != nil {
		if side.budget, err = ownedOrNil(ctx, r, op, id, r.cs.PolicyV1().PodDisruptionBudgets(r.opts.Namespace), d.Name); err != nil {
			return side, err
		}
	}
	if w.Service != nil {
		if side.service, err = ownedOrNil(ctx, r, op, id, r.cs.CoreV1().Services(r.opts.Namespace), d.Name); err != nil {
			return side, err
		}
	}
	if w.Autoscaling != nil {
		side.autoscaler, err = ownedOrNil(ctx, r, op, id, r.cs.AutoscalingV2().HorizontalPodAutoscalers(r.opts.Namespace), d.Name)
	}
	return side, err
}

// allSideObjects reads those of every agent opts selects, by agent id.
func (r *Runtime) allSideObjects(ctx context.Context, op string, opts metav1.ListOptions) (map[string]sideObjects, error) {
	pdbs, err := r.cs.PolicyV1().PodDisruptionBudgets(r.opts.Namespace).List(ctx, opts)
	if err != nil {
		return nil, r.clusterError(op, "", err)
	}
	svcs, err := r.cs.CoreV1().Services(r.opts.Namespace).List(ctx, opts)
	if err != nil {
		return nil, r.clusterError(op, "", err)
	}
	hpas, err := r.cs.AutoscalingV2().HorizontalPodAutoscalers(r.opts.Namespace).List(ctx, opts)
	if err != nil {
		return nil, r.clusterError(op, "", err)
	}
	side := map[string]sideObjects{}
	for i := range pdbs.Items {
		id := pdbs.Items[i].Labels[labelAgentID]
		s := side[id]
		s.budget = &pdbs.Items[i]
		side[id] = s
	}
	for i := range svcs.Items {
		id := svcs.Items[i].Labels[labelAgentID]
		s := side[id]
		s.service = &svcs.Items[i]
		side[id] = s
	}
	for i := range hpas.Items {
		id := hpas.Items[i].Labels[labelAgentID]
		s := side[id]
		s.autoscaler = &hpas.Items[i]
		side[id] = s
	}
	return side, nil
}

// ownedOrNil gets the object named name when it is agent id's; nil when
// there is none, or it is another's, which says nothing of this agent.
func ownedOrNil[T metav1.Object](ctx context.Context, r *Runtime, op, id string, api interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
}, name string,
) (T, error) {
	var none T
	obj, err := api.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return none, nil
	case err != nil:
		return none, r.clusterError(op, id, err)
	}
	if !r.owns(id, obj) {
		return none, nil
	}
	return obj, nil
}

// formatService writes what the agent's Service carries of want.
func formatService(svc *corev1.Service, want agentruntime.Service) string {
	if svc == nil || len(svc.Spec.Ports) == 0 {
		return "none"
	}
	protocol := ""
	if p := svc.Spec.Ports[0].AppProtocol; p != nil {
		protocol = *p
	}
	shown := map[string]string{}
	for k := range want.Annotations {
		if v, ok := svc.Annotations[k]; ok {
			shown[k] = v
		}
	}
	return "app_protocol=" + protocol + "; annotations: " + formatMap(shown, func(string) bool { return true })
}

// The defaults of an agent that runs two or more pods: spread across nodes
// where the cluster can, and at most one pod disrupted at a time, so that a
// node's drain never takes the agent down.
var (
	defaultSpread = agentruntime.TopologySpread{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: string(corev1.ScheduleAnyway), MaxSkew: 1}
	defaultBudget = agentruntime.DisruptionBudget{MaxUnavailable: "1"}
)

// spreadOf is how the pods of an agent of workload w running at most
// replicas pods spread: as w says, else by default when there are two or
// more.
func spreadOf(w agentruntime.Workload, replicas int32) *agentruntime.TopologySpread {
	return ownOrManyDefault(w.TopologySpread, &defaultSpread, replicas)
}

// budgetOf is the disruption budget of such an agent: w's, else by default
// when it runs two or more.
func budgetOf(w agentruntime.Workload, replicas int32) *agentruntime.DisruptionBudget {
	return ownOrManyDefault(w.DisruptionBudget, &defaultBudget, replicas)
}

func ownOrManyDefault[T any](own, def *T, replicas int32) *T {
	switch {
	case own != nil:
		return own
	case replicas >= 2:
		return def
	}
	return nil
}

var _ agentruntime.WorkloadRunner = (*Runtime)(nil)

// annotationBudget bounds the workload's annotations: half of the 256 KiB
// the API server allows an object's annotations in all, the rest left to
// the adapter's records.
const annotationBudget = 128 << 10

// reservedPrefixes are the label and annotation key prefixes the adapter
// keeps for itself: what its selectors and records rest on.
var reservedPrefixes = []string{"a2a/", labelManagedBy}

// CheckWorkload checks w against what the API server accepts, and against
// what the adapter lets an agent change of its pods' security and
// placement, so that a plan names the problem at its attribute rather than
// an apply failing or a pod running with less isolation than documented.
func (r *Runtime) CheckWorkload(w agentruntime.Workload) []agentruntime.WorkloadProblem {
	return checkWorkload(w, r.opts.Resources.withDefaults(), r.opts.AllowSystemPlacement)
}

// refuseWorkload refuses a spec whose own workload CheckWorkload finds
// wrong. The provider plans no such spec; this keeps a spec that reaches
// the runtime another way from loosening the pods all the same.
func (r *Runtime) refuseWorkload(op, id string, w agentruntime.Workload) error {
	problems := r.CheckWorkload(w)
	if len(problems) == 0 {
		return nil
	}
	return agentruntime.Errorf(agentruntime.KindInvalidConfig, op, id, nil, "kubernetes.%s: %s", problems[0].Field, problems[0].Message)
}

// CheckDefaults checks w as the agents' default workload (Options.Workload),
// whose resources are the runtime's own Resources; allowSystemPlacement is
// Options.AllowSystemPlacement.
func CheckDefaults(w agentruntime.Workload, allowSystemPlacement bool) []agentruntime.WorkloadProblem {
	found := checkWorkload(w, DefaultResources, allowSystemPlacement)
	if w.Resources != (agentruntime.Resources{}) {
		found = append(found, agentruntime.WorkloadProblem{Field: "resources", Index: -1,
			Message: "every agent's resources are the kubernetes block's resources: set them there"})
	}
	return found
}

// checkWorkload checks w, whose resources are set over base; system
// priority classes and control-plane placement pass only with
// allowSystemPlacement.
func checkWorkload(w agentruntime.Workload, base Resources, allowSystemPlacement bool) []agentruntime.WorkloadProblem {
	var found []agentruntime.WorkloadProblem
	add := func(field string, index int, format string, args ...any) {
		found = append(found, agentruntime.WorkloadProblem{Field: field, Index: index, Message: fmt.Sprintf(format, args...)})
	}
	checkKeys := func(field string, m map[string]string, checkValue bool) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			for _, msg := range validation.IsQualifiedName(k) {
				add(field, -1, "key %q: %s", k, msg)
			}
			if reserved(k) {
				add(field, -1, "key %q: keys beginning with \"%s\" are the provider's own, which its objects are found by", k, strings.Join(reservedPrefixes, `" or "`))
			}
			if !checkValue {
				continue
			}
			for _, msg := range validation.IsValidLabelValue(m[k]) {
				add(field, -1, "value %q of key %q: %s", m[k], k, msg)
			}
		}
	}
	checkKeys("labels", w.Labels, true)
	checkKeys("annotations", w.Annotations, false)
	checkKeys("node_selector", w.NodeSelector, true)
	// The Service's own annotations stay off the pods, and so off their
	// security: only the workload's annotations reach the pod template.
	for _, k := range slices.Sorted(maps.Keys(w.Annotations)) {
		if securityAnnotation(k) {
			add("annotations", -1, "key %q sets the pods' security, which the provider sets itself: %s. Remove the key", k, podSecurity)
		}
	}
	if !allowSystemPlacement {
		for _, k := range slices.Sorted(maps.Keys(w.NodeSelector)) {
			if controlPlaneRoles[k] {
				add("node_selector", -1, "key %q selects the cluster's control-plane nodes, which agents are kept off: remove it, or %s", k, allowSystemHint)
			}
		}
		if strings.HasPrefix(w.PriorityClass, systemPriorityPrefix) {
			add("priority_class", -1, "%q is one of the priority classes Kubernetes reserves (%q...) for the pods a node or the cluster "+
				"cannot run without, which may preempt every other pod: name a PriorityClass of your own, or %s", w.PriorityClass, systemPriorityPrefix, allowSystemHint)
		}
	}
	if size := totalSize(w.Annotations); size > annotationBudget {
		add("annotations", -1, "%d bytes in all, more than the %d the provider leaves for them", size, annotationBudget)
	}
	for _, name := range []struct{ field, value string }{{"service_account", w.ServiceAccount}, {"priority_class", w.PriorityClass}} {
		if name.value == "" {
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(name.value) {
			add(name.field, -1, "%q: %s", name.value, msg)
		}
	}
	for i, t := range w.Tolerations {
		problem := tolerationProblem(t)
		if problem == "" && !allowSystemPlacement {
			problem = controlPlaneToleration(t)
		}
		if problem != "" {
			add("tolerations", i, "%s", problem)
		}
	}
	if sp := w.TopologySpread; sp != nil {
		if problem := spreadProblem(*sp); problem != "" {
			add("topology_spread", -1, "%s", problem)
		}
	}
	if b := w.DisruptionBudget; b != nil {
		if problem := budgetProblem(*b); problem != "" {
			add("disruption_budget", -1, "%s", problem)
		}
	}
	if svc := w.Service; svc != nil {
		checkKeys("service", svc.Annotations, false)
		if p := svc.AppProtocol; p != "" {
			for _, msg := range validation.IsQualifiedName(p) {
				add("service", -1, "app_protocol %q: %s", p, msg)
			}
		}
	}
	if ro := w.Rollout; ro != nil {
		switch {
		case !validBudgetValue(ro.MaxSurge):
			add("rollout", -1, "max_surge %q is neither a whole number of pods (\"1\") nor a percentage of them (\"25%%\")", ro.MaxSurge)
		case !validBudgetValue(ro.MaxUnavailable):
			add("rollout", -1, "max_unavailable %q is neither a whole number of pods (\"0\") nor a percentage of them (\"25%%\")", ro.MaxUnavailable)
		case isZero(ro.MaxSurge) && isZero(ro.MaxUnavailable):
			add("rollout", -1, "max_surge and max_unavailable are both zero, which would let no rollout make progress: raise one")
		}
	}
	if a := w.Autoscaling; a != nil {
		switch {
		case a.MinReplicas < 1:
			add("autoscaling", -1, "min_replicas %d must be at least 1", a.MinReplicas)
		case a.MaxReplicas < a.MinReplicas:
			add("autoscaling", -1, "max_replicas %d is below min_replicas %d", a.MaxReplicas, a.MinReplicas)
		case a.TargetCPUUtilization < 1:
			add("autoscaling", -1, "target_cpu_utilization %d must be at least 1 (percent of the CPU the pods request)", a.TargetCPUUtilization)
		}
	}
	if w.Resources != (agentruntime.Resources{}) {
		// Checked as the container gets them: over the provider block's.
		if err := base.under(w.Resources).validate(); err != nil {
			msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "kubernetes resources."), "kubernetes resources: ")
			add("resources", -1, "%s", msg)
		}
	}
	return found
}

func spreadProblem(sp agentruntime.TopologySpread) string {
	if msgs := validation.IsQualifiedName(sp.TopologyKey); len(msgs) > 0 {
		return fmt.Sprintf("topology_key %q: %s", sp.TopologyKey, strings.Join(msgs, "; "))
	}
	switch corev1.UnsatisfiableConstraintAction(sp.WhenUnsatisfiable) {
	case corev1.ScheduleAnyway, corev1.DoNotSchedule:
	default:
		return fmt.Sprintf("when_unsatisfiable %q is not one of %q, %q", sp.WhenUnsatisfiable, corev1.ScheduleAnyway, corev1.DoNotSchedule)
	}
	if sp.MaxSkew < 1 {
		return fmt.Sprintf("max_skew %d must be at least 1", sp.MaxSkew)
	}
	return ""
}

func budgetProblem(b agentruntime.DisruptionBudget) string {
	if (b.MinAvailable == "") == (b.MaxUnavailable == "") {
		return "set exactly one of min_available and max_unavailable"
	}
	for _, v := range []struct{ name, value string }{{"min_available", b.MinAvailable}, {"max_unavailable", b.MaxUnavailable}} {
		if v.value != "" && !validBudgetValue(v.value) {
			return fmt.Sprintf("%s %q is neither a whole number of pods (\"1\") nor a percentage of them (\"50%%\")", v.name, v.value)
		}
	}
	return ""
}

func validBudgetValue(v string) bool {
	digits, percent := strings.CutSuffix(v, "%")
	n, err := strconv.Atoi(digits)
	return err == nil && n >= 0 && (!percent || n <= 100) && strconv.Itoa(n) == digits
}

func isZero(v string) bool { return v == "0" || v == "0%" }

// budgetValue is v as the PodDisruptionBudget writes it.
func budgetValue(v string) *intstr.IntOrString {
	if v == "" {
		return nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		return ptr(intstr.FromInt32(int32(n)))
	}
	return ptr(intstr.FromString(v))
}

// podDisruptionBudget is the agent's PodDisruptionBudget, or nil when it
// has none.
func (r *Runtime) podDisruptionBudget(b blueprint) *policyv1.PodDisruptionBudget {
	budget := budgetOf(b.workload, b.mostReplicas())
	if budget == nil {
		return nil
	}
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: r.meta(b),
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: r.selector(b.cfg.ID())},
			MinAvailable:   budgetValue(budget.MinAvailable),
			MaxUnavailable: budgetValue(budget.MaxUnavailable),
		},
	}
}

// putSideObjects gives the agent the PodDisruptionBudget and the
// HorizontalPodAutoscaler b asks for, and deletes those it has that b asks
// for no longer. They follow the Deployment: a crash before them leaves
// objects that read other than planned, which the next apply puts right.
func (r *Runtime) putSideObjects(ctx context.Context, op string, b blueprint) error {
	id, ns, background := b.cfg.ID(), r.opts.Namespace, metav1.DeletePropagationBackground
	budgets := r.cs.PolicyV1().PodDisruptionBudgets(ns)
	var err error
	if budget := r.podDisruptionBudget(b); budget != nil {
		err = put(ctx, r, op, id, "poddisruptionbudget", budgets, budget, nil)
	} else {
		err = deleteOwned(ctx, r, op, id, "poddisruptionbudget", budgets, background)
	}
	if err != nil {
		return err
	}
	crashpoint.Hit("kube-side-budget-put")
	autoscalers := r.cs.AutoscalingV2().HorizontalPodAutoscalers(ns)
	if hpa := r.autoscaler(b); hpa != nil {
		return put(ctx, r, op, id, "horizontalpodautoscaler", autoscalers, hpa, nil)
	}
	return deleteOwned(ctx, r, op, id, "horizontalpodautoscaler", autoscalers, background)
}

// autoscaler is the agent's HorizontalPodAutoscaler, or nil when it has
// none.
func (r *Runtime) autoscaler(b blueprint) *autoscalingv2.HorizontalPodAutoscaler {
	a := b.workload.Autoscaling
	if a == nil {
		return nil
	}
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: r.meta(b),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: b.name},
			MinReplicas:    ptr(a.MinReplicas),
			MaxReplicas:    a.MaxReplicas,
			Metrics: []autoscalingv2.MetricSpec{{
				Type: autoscalingv2.ResourceMetricSourceType,
				Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{
					Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(a.TargetCPUUtilization),
				}},
			}},
		},
	}
}

// formatAutoscaler writes an autoscaler as settings show it.
func formatAutoscaler(spec autoscalingv2.HorizontalPodAutoscalerSpec) string {
	least := int32(1)
	if spec.MinReplicas != nil {
		least = *spec.MinReplicas
	}
	cpu := "none"
	for _, m := range spec.Metrics {
		if m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil {
			cpu = strconv.Itoa(int(*m.Resource.Target.AverageUtilization)) + "%"
		}
	}
	return fmt.Sprintf("min=%d max=%d cpu=%s of %s/%s", least, spec.MaxReplicas, cpu, spec.ScaleTargetRef.Kind, spec.ScaleTargetRef.Name)
}

// formatBudget writes a budget as settings show it.
func formatBudget(spec policyv1.PodDisruptionBudgetSpec) string {
	switch {
	case spec.MinAvailable != nil:
		return "min_available=" + spec.MinAvailable.String()
	case spec.MaxUnavailable != nil:
		return "max_unavailable=" + spec.MaxUnavailable.String()
	}
	return "none"
}

func reserved(key string) bool {
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

func totalSize(m map[string]string) int {
	n := 0
	for k, v := range m {
		n += len(k) + len(v)
	}
	return n
}

// podSecurity is what the adapter's pod template sets of the pods'
// security, as an error refusing an annotation that would change it says.
const podSecurity = "uid and gid 65534 and never root, the container runtime's default seccomp profile (RuntimeDefault) " +
	"and, on nodes that run AppArmor, its default AppArmor profile, every capability dropped, no privilege escalation, " +
	"a read-only root filesystem"

// runtimeAnnotationPrefixes are the annotation prefixes container
// runtimes read as settings of the pod's sandbox (user namespaces,
// devices, the hypervisor), which bypass its securityContext wherever the
// runtime is configured to take them.
var runtimeAnnotationPrefixes = []string{"io.kubernetes.cri-o.", "io.katacontainers.", "dev.gvisor."}

// securityAnnotation reports whether an annotation key changes the pod's
// security: the AppArmor, seccomp and sysctl annotations Kubernetes reads
// (every key whose prefix is a "security" domain of kubernetes.io or
// k8s.io, such as container.apparmor.security.beta.kubernetes.io/<container>,
// seccomp.security.alpha.kubernetes.io/pod or
// security.alpha.kubernetes.io/unsafe-sysctls), the PodSecurityPolicy's,
// and the container runtimes' sandbox settings.
func securityAnnotation(key string) bool {
	// Prefixes are lower case, or the key is refused already.
	if key == "kubernetes.io/psp" {
		return true
	}
	for _, p := range runtimeAnnotationPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	prefix, _, ok := strings.Cut(key, "/")
	ofKubernetes := strings.HasSuffix("."+prefix, ".kubernetes.io") || strings.HasSuffix("."+prefix, ".k8s.io")
	return ok && ofKubernetes && slices.Contains(strings.Split(prefix, "."), "security")
}

// systemPriorityPrefix begins the names Kubernetes reserves for its own
// priority classes, system-node-critical and system-cluster-critical.
const systemPriorityPrefix = "system-"

// controlPlaneRoles are the node-role labels, and the taints of the same
// keys, that mark control-plane nodes: kubeadm's, the older master, and
// RKE's controlplane and etcd.
var controlPlaneRoles = map[string]bool{
	"node-role.kubernetes.io/control-plane": true, "node-role.kubernetes.io/master": true,
	"node-role.kubernetes.io/controlplane": true, "node-role.kubernetes.io/etcd": true,
}

// allowSystemHint says how an operator lets agents onto the control plane
// and use the system priority classes.
const allowSystemHint = "set allow_system_placement = true in the provider's kubernetes block to allow it"

// controlPlaneToleration says how t lets pods onto control-plane nodes,
// which their taints keep other pods off, or "".
func controlPlaneToleration(t agentruntime.Toleration) string {
	switch {
	case t.Key == "" && t.Operator == string(corev1.TolerationOpExists):
		return "a toleration without a key tolerates every taint, the control-plane nodes' too, which agents are kept off: " +
			"name the taint to tolerate, or " + allowSystemHint
	case controlPlaneRoles[t.Key]:
		return fmt.Sprintf("key %q is the taint of the cluster's control-plane nodes, which agents are kept off: remove the toleration, or %s", t.Key, allowSystemHint)
	}
	return ""
}

// tolerationProblem says what the API server would refuse in t, or "".
func tolerationProblem(t agentruntime.Toleration) string {
	switch t.Operator {
	case "", string(corev1.TolerationOpEqual):
	case string(corev1.TolerationOpExists):
		if t.Value != "" {
			return fmt.Sprintf("operator %q takes no value (it matches any value of the key); remove value %q", t.Operator, t.Value)
		}
	default:
		return fmt.Sprintf("operator %q is not one of %q, %q", t.Operator, corev1.TolerationOpEqual, corev1.TolerationOpExists)
	}
	if t.Key == "" && t.Operator != string(corev1.TolerationOpExists) {
		return `a toleration without a key must have operator "Exists" (it then tolerates every taint)`
	}
	if t.Key != "" {
		if msgs := validation.IsQualifiedName(t.Key); len(msgs) > 0 {
			return fmt.Sprintf("key %q: %s", t.Key, strings.Join(msgs, "; "))
		}
	}
	switch corev1.TaintEffect(t.Effect) {
	case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
	default:
		return fmt.Sprintf("effect %q is not one of %q, %q, %q (or empty for all)", t.Effect,
			corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute)
	}
	if t.Seconds != nil && corev1.TaintEffect(t.Effect) != corev1.TaintEffectNoExecute {
		return `toleration_seconds applies to effect "NoExecute" only`
	}
	return ""
}

// applyWorkload puts w on the pod spec and the pod template's labels and
// annotations, beside the adapter's own, which win, and spreads the pods
// of an agent that runs replicas of them.
func applyWorkload(w agentruntime.Workload, replicas int32, selector map[string]string, tmpl *corev1.PodTemplateSpec) {
	if sp := spreadOf(w, replicas); sp != nil {
		tmpl.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: sp.MaxSkew, TopologyKey: sp.TopologyKey, WhenUnsatisfiable: corev1.UnsatisfiableConstraintAction(sp.WhenUnsatisfiable),
			LabelSelector: &metav1.LabelSelector{MatchLabels: selector},
		}}
	}
	tmpl.Labels = agentruntime.MergeMaps(w.Labels, tmpl.Labels)
	tmpl.Annotations = agentruntime.MergeMaps(w.Annotations, tmpl.Annotations)
	pod := &tmpl.Spec
	if w.ServiceAccount != "" {
		pod.ServiceAccountName = w.ServiceAccount
		// Workload identity reads the account's token.
		pod.AutomountServiceAccountToken = ptr(true)
	}
	pod.NodeSelector = maps.Clone(w.NodeSelector)
	pod.PriorityClassName = w.PriorityClass
	for _, t := range w.Tolerations {
		pod.Tolerations = append(pod.Tolerations, corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.Seconds,
		})
	}
}

// workloadRecord is the annotation recording w.
func workloadRecord(w agentruntime.Workload) string {
	if w.IsZero() {
		return ""
	}
	raw, _ := json.Marshal(w) // plain values always marshal
	return string(raw)
}

// workloadOf reads the workload the Deployment records; none when it
// records none or one it cannot read.
func workloadOf(d *appsv1.Deployment) agentruntime.Workload {
	var w agentruntime.Workload
	if raw := d.Annotations[annotationWorkload]; raw != "" {
		_ = json.Unmarshal([]byte(raw), &w)
	}
	return w
}

// workloadSettings reads the workload's settings off a pod template, each
// only when set.
func workloadSettings(tmpl corev1.PodTemplateSpec, settings map[string]string) {
	pod := tmpl.Spec
	setIf := func(name, value string) {
		if value != "" {
			settings[name] = value
		}
	}
	setIf(settingLabels, formatMap(tmpl.Labels, func(k string) bool {
		return !reserved(k)
	}))
	setIf(settingAnnotations, formatMap(tmpl.Annotations, func(k string) bool {
		// kubectl rollout restart marks the template; that is no setting.
		return !reserved(k) && !strings.HasPrefix(k, "kubectl.kubernetes.io/")
	}))
	if pod.ServiceAccountName != "" && pod.ServiceAccountName != "default" {
		settings[settingServiceAccount] = pod.ServiceAccountName
	}
	setIf(settingNodeSelector, formatMap(pod.NodeSelector, func(string) bool { return true }))
	setIf(settingPriorityClass, pod.PriorityClassName)
	tolerations := make([]string, 0, len(pod.Tolerations))
	for _, t := range pod.Tolerations {
		s := fmt.Sprintf("%s %s %s:%s", t.Key, cmp.Or(string(t.Operator), string(corev1.TolerationOpEqual)), t.Value, t.Effect)
		if t.TolerationSeconds != nil {
			s += " for " + strconv.FormatInt(*t.TolerationSeconds, 10) + "s"
		}
		tolerations = append(tolerations, s)
	}
	setIf(settingTolerations, strings.Join(tolerations, ", "))
	spreads := make([]string, 0, len(pod.TopologySpreadConstraints))
	for _, c := range pod.TopologySpreadConstraints {
		spreads = append(spreads, fmt.Sprintf("%s %s max_skew=%d", c.TopologyKey, c.WhenUnsatisfiable, c.MaxSkew))
	}
	setIf(settingTopologySpread, strings.Join(spreads, ", "))
}

// formatMap writes the entries of m whose keys keep admits as k=v, sorted.
func formatMap(m map[string]string, keep func(string) bool) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if keep(k) {
			parts = append(parts, k+"="+m[k])
		}
	}
	return strings.Join(parts, ",")
}
