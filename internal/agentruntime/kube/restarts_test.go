package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRestarts sums the agent container's restarts over the pods that
// stay, leaving out other containers and pods on their way out.
func TestRestarts(t *testing.T) {
	pod := func(deleting bool, counts map[string]int32) corev1.Pod {
		p := corev1.Pod{}
		if deleting {
			p.DeletionTimestamp = &metav1.Time{}
		}
		for name, n := range counts {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: name, RestartCount: n})
		}
		return p
	}
	pods := []corev1.Pod{
		pod(false, map[string]int32{agentName: 2, "sidecar": 7}),
		pod(false, map[string]int32{agentName: 1}),
		pod(true, map[string]int32{agentName: 5}),
	}
	if got := restarts(pods); got != 3 {
		t.Errorf("restarts = %d, want 3", got)
	}
	if got := restarts(nil); got != 0 {
		t.Errorf("restarts of no pods = %d, want 0", got)
	}
}
