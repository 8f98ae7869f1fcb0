package kube

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestDeploymentDeletedByHand: an agent whose Deployment is deleted
// outside the adapter reads damaged, not gone, while its ConfigMap is
// left; provisioning it again brings it back, and it starts healthy.
func TestDeploymentDeletedByHand(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	spec := agentruntime.Spec{Config: agentConfig("Kube Deleted")}
	a, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	if err := rt.cs.AppsV1().Deployments(opts.Namespace).Delete(testContext(t), rt.objectName(a.ID), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Get(testContext(t), a.ID); !agentruntime.IsKind(err, agentruntime.KindDamaged) {
		t.Fatalf("Get of an agent whose deployment was deleted = %v, want damaged", err)
	}
	again, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatalf("Provision again: %v", err)
	}
	if again.Port != a.Port || again.Endpoint != a.Endpoint {
		t.Errorf("provisioned again at %s (port %d), want %s (port %d)", again.Endpoint, again.Port, a.Endpoint, a.Port)
	}
	if err := rt.Start(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if h, err := agentruntime.WaitHealthy(testContext(t), rt, a.ID); err != nil {
		t.Fatalf("WaitHealthy: %s: %v", h, err)
	}
	if err := rt.Deprovision(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Get(testContext(t), a.ID); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		t.Errorf("Get after Deprovision = %v, want not found", err)
	}
}
