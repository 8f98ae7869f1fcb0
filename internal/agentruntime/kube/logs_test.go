package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestOrTerminationMessage: a container's log read from the kubelet wins;
// when none could be read, because the kubelet no longer has the
// container or it wrote nothing yet, the tail the pod's status kept of it
// stands in, a whole line.
func TestOrTerminationMessage(t *testing.T) {
	exited := &corev1.ContainerStateTerminated{ExitCode: 2, Message: "error: bearer_token is empty"}
	tests := []struct {
		name       string
		log        string
		terminated *corev1.ContainerStateTerminated
		want       string
	}{
		{"log read", "listening\nerror: bearer_token is empty\n", exited, "listening\nerror: bearer_token is empty\n"},
		{"container gone", "unable to retrieve container logs for containerd://36a436a8", exited, "error: bearer_token is empty\n"},
		{"nothing read", "", exited, "error: bearer_token is empty\n"},
		{"message ends its line", "", &corev1.ContainerStateTerminated{ExitCode: 1, Message: "boom\n"}, "boom\n"},
		{"running, nothing read", "", nil, ""},
		{"exited without a message", "", &corev1.ContainerStateTerminated{ExitCode: 0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(orTerminationMessage([]byte(tt.log), tt.terminated)); got != tt.want {
				t.Errorf("orTerminationMessage = %q, want %q", got, tt.want)
			}
		})
	}
}
