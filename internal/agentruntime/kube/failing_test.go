package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestFailingSparesAKubeletCatchingUp: a container that waits for the
// kubelet's cache of its ConfigMap or Secret does not fail the agent,
// unless it waits after it exited in failure; one that cannot be made, or
// crash-loops, does, as does one run again after a failure until it is
// ready.
func TestFailingSparesAKubeletCatchingUp(t *testing.T) {
	pod := func(reason, message string) corev1.Pod {
		return corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			Name: agentName, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}},
		}}}}
	}
	running := func(ready bool) corev1.Pod {
		return corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			Name: agentName, Ready: ready, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
		}}}}
	}
	crashed := func(p corev1.Pod) corev1.Pod {
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 2}
		return p
	}
	tests := []struct {
		name    string
		pod     corev1.Pod
		failing bool
	}{
		{"configmap cache not synced", pod("CreateContainerConfigError", "failed to sync configmap cache: timed out waiting for the condition"), false},
		{"secret cache not synced", pod("CreateContainerConfigError", "failed to sync secret cache: timed out waiting for the condition"), false},
		{"missing key", pod("CreateContainerConfigError", `couldn't find key config.toml in ConfigMap agents/a2a-x`), true},
		{"crash loop", pod("CrashLoopBackOff", "back-off 10s restarting failed container"), true},
		{"cache not synced after a crash", crashed(pod("CreateContainerConfigError", "failed to sync configmap cache: timed out waiting for the condition")), true},
		{"run again after a crash, not ready", crashed(running(false)), true},
		{"run again after a crash, ready", crashed(running(true)), false},
		{"running, not ready yet", running(false), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := failing([]corev1.Pod{tt.pod}); (err != nil) != tt.failing {
				t.Errorf("failing = %v, want failing %v", err, tt.failing)
			}
		})
	}
}
