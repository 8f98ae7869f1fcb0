//go:build linux

package provider

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubeCrashPoints are the crash points a kubernetes agent's create, update
// (the rollout of its new pods: begun, and done but not yet recorded) and
// delete reach, and both put the objects beside its Deployment through
// (its budget put, its autoscaler not yet).
var kubeCrashPoints = map[string][]string{
	"create": {"kube-provision-created", "kube-side-budget-put", "provider-create-provisioned", "kube-start-scaled", "provider-settle-started"},
	"update": {"kube-roll-begun", "kube-roll-rolled-out", "kube-side-budget-put", "provider-update-provisioned"},
	"delete": {"kube-deprovision-deleted", "kube-deprovision-drained", "provider-delete-deprovisioned"},
}

// TestAccKubeCrash is TestAccCrash_provider for agents on the cluster, each
// world in a namespace of its own: a create cut short is taken over by the
// next apply, every object of the namespace belongs to an agent in state,
// which runs as the pods its instance names, and destroy leaves no object.
func TestAccKubeCrash(t *testing.T) {
	requireAcc(t)
	k := needKube(t)
	runCrashPoints(t, func(t *testing.T) crashAdapter { return kubeAgents{k: k, ns: k.namespace(t)} }, kubeCrashPoints)
}

// kubeAgents are agents run as Deployments in namespace ns of the cluster.
type kubeAgents struct {
	k  *kubeCluster
	ns string
}

func (a kubeAgents) block() string { return a.k.block(a.ns) }

// attributes gives each agent a disruption budget and an autoscaler, so
// that its objects beside the Deployment are made, changed and deleted
// with it.
func (kubeAgents) attributes() string {
	return "  kubernetes = {\n    disruption_budget = { max_unavailable = \"1\" }\n" +
		"    autoscaling = { min_replicas = 1, max_replicas = 2, target_cpu_utilization = 80 }\n  }\n"
}

// found returns, by agent id, the pods of every agent with an object in
// the namespace that are not on their way out.
func (a kubeAgents) found(w *crashWorld) map[string][]string {
	w.t.Helper()
	out := map[string][]string{}
	a.each(w, func(kind string, m metav1.Object) {
		id := m.GetLabels()["a2a/agent-id"]
		pods := out[id]
		if kind == "pods" && m.GetDeletionTimestamp() == nil {
			pods = append(pods, m.GetName())
			slices.Sort(pods)
		}
		out[id] = pods
	})
	return out
}

// left describes every object and pod left in the namespace.
func (a kubeAgents) left(w *crashWorld) []string {
	w.t.Helper()
	var left []string
	a.each(w, func(kind string, m metav1.Object) { left = append(left, kind+"/"+m.GetName()) })
	return left
}

// remove leaves the objects to the deletion of the namespace, when the
// test ends.
func (kubeAgents) remove(*crashWorld) {}

// each calls f with every object and pod of the provider's in the
// namespace, and its kind.
func (a kubeAgents) each(w *crashWorld, f func(kind string, m metav1.Object)) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for kind, list := range a.k.agentObjects(ctx, a.ns, "app.kubernetes.io/managed-by=terraform-provider-a2a") {
		l, err := list()
		if err != nil {
			w.t.Fatal(err)
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, item := range items {
			m, err := meta.Accessor(item)
			if err != nil {
				w.t.Fatal(fmt.Errorf("%s: %w", kind, err))
			}
			f(kind, m)
		}
	}
}
