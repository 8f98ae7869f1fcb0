package kube

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
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
)

var _ agentruntime.WorkloadRunner = (*Runtime)(nil)

// annotationBudget bounds the workload's annotations: half of the 256 KiB
// the API server allows an object's annotations in all, the rest left to
// the adapter's records.
const annotationBudget = 128 << 10

// reservedPrefixes are the label and annotation key prefixes the adapter
// keeps for itself: what its selectors and records rest on.
var reservedPrefixes = []string{"a2a/", labelManagedBy}

// CheckWorkload checks w against what the API server accepts, so that a
// plan names the problem at its attribute rather than an apply failing.
func (r *Runtime) CheckWorkload(w agentruntime.Workload) []agentruntime.WorkloadProblem {
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
				add(field, -1, "key %q: keys beginning with %q are the provider's own, which its objects are found by", k, strings.Join(reservedPrefixes, `" or "`))
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
		if problem := tolerationProblem(t); problem != "" {
			add("tolerations", i, "%s", problem)
		}
	}
	return found
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
// annotations, beside the adapter's own, which win.
func applyWorkload(w agentruntime.Workload, tmpl *corev1.PodTemplateSpec) {
	tmpl.Labels = withOwn(w.Labels, tmpl.Labels)
	tmpl.Annotations = withOwn(w.Annotations, tmpl.Annotations)
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

// withOwn is extra with own over it; nil when both are empty.
func withOwn(extra, own map[string]string) map[string]string {
	if len(extra) == 0 {
		return own
	}
	out := maps.Clone(extra)
	maps.Copy(out, own)
	return out
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
