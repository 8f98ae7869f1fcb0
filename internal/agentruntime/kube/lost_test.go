package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDegradation: an agent lacks pods only while fewer are ready than it
// runs and one of those that are not is on a lost node; pods that are
// only starting, and lost ones already replaced, degrade nothing.
func TestDegradation(t *testing.T) {
	pod := func(name string, ready, containersReady corev1.ConditionStatus, deleting bool) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{NodeName: "node-" + name}}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}, {Type: corev1.ContainersReady, Status: containersReady}}
		if deleting {
			p.DeletionTimestamp = &metav1.Time{}
		}
		return p
	}
	serving := pod("a", corev1.ConditionTrue, corev1.ConditionTrue, false)
	lost := pod("b", corev1.ConditionFalse, corev1.ConditionTrue, false)
	evicted := pod("c", corev1.ConditionFalse, corev1.ConditionTrue, true)
	starting := pod("d", corev1.ConditionFalse, corev1.ConditionFalse, false)
	replacement := pod("e", corev1.ConditionTrue, corev1.ConditionTrue, false)
	tests := []struct {
		name string
		pods []corev1.Pod
		want int32
		says string // "" for not degraded
	}{
		{"all ready", []corev1.Pod{serving, replacement}, 2, ""},
		{"one starting", []corev1.Pod{serving, starting}, 2, ""},
		{"one lost", []corev1.Pod{serving, lost}, 2, "1 of its 2 pods are ready: pod b on node node-b is lost"},
		{"evicted, its replacement starting", []corev1.Pod{serving, evicted, starting}, 2, "pod c on node node-c is lost"},
		{"evicted and replaced", []corev1.Pod{serving, evicted, replacement}, 2, ""},
		{"two lost", []corev1.Pod{serving, lost, evicted}, 3, "pod b on node node-b, pod c on node node-c are lost"},
		{"lost, but scaled down to what is ready", []corev1.Pod{serving, lost}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := degradation(tt.pods, tt.want)
			if (tt.says == "") != (got == "") || !strings.Contains(got, tt.says) {
				t.Errorf("degradation = %q, want one saying %q", got, tt.says)
			}
		})
	}
}
