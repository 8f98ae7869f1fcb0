package kube

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRollingOut(t *testing.T) {
	tests := []struct {
		name    string
		status  appsv1.DeploymentStatus
		rolling bool
	}{
		{"every pod of the current template", appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2}, false},
		{"a pod of the current template not yet available", appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 1}, false},
		{"a change the cluster has not seen", appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2}, true},
		{"new pods missing", appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 1, AvailableReplicas: 2}, true},
		{"an old pod beside the new ones", appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 3, UpdatedReplicas: 2, AvailableReplicas: 3}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "a2a-x", Namespace: "ns", Generation: 3},
				Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(2))}, Status: tt.status}
			if err := rollingOut(d); (err != nil) != tt.rolling {
				t.Errorf("rollingOut = %v, want rolling %v", err, tt.rolling)
			}
		})
	}
}
