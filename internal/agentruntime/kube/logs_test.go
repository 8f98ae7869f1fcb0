package kube

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestOrTerminationMessage: a container's log read from the kubelet wins;
// when none could be read, because it wrote nothing yet or the read failed,
// the tail the pod's status kept of it stands in, a whole line.
func TestOrTerminationMessage(t *testing.T) {
	exited := &corev1.ContainerStateTerminated{ExitCode: 2, Message: "error: bearer_token is empty"}
	tests := []struct {
		name       string
		log        string
		terminated *corev1.ContainerStateTerminated
		want       string
	}{
		{"log read", "listening\nerror: bearer_token is empty\n", exited, "listening\nerror: bearer_token is empty\n"},
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

// TestLogRead: what the kubelet answers in place of a container's log it
// no longer has, like a failed read, is no log, so that the pod's status
// stands in; a log is read as it is.
func TestLogRead(t *testing.T) {
	tests := []struct {
		name string
		data string
		err  error
		want string
	}{
		{"log", "listening on :8080\n", nil, "listening on :8080\n"},
		{"container gone", "unable to retrieve container logs for containerd://36a436a8", nil, ""},
		{"read failed", "", errors.New("the server could not find the requested resource"), ""},
		{"empty", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(logRead([]byte(tt.data), tt.err)); got != tt.want {
				t.Errorf("logRead = %q, want %q", got, tt.want)
			}
		})
	}
}
