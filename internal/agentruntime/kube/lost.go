package kube

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// degradation says what an agent whose card answers has lost: pods on a
// node that stopped reporting to the cluster, while fewer of its pods are
// ready than it runs; "" when it lacks none. The cluster replaces such pods
// once their toleration of an unreachable node runs out; until then
// nothing else tells them from pods that are only starting.
func degradation(pods []corev1.Pod, want int32) string {
	ready := 0
	var lost []string
	for _, p := range pods {
		switch {
		case podReady(p) && p.DeletionTimestamp == nil:
			ready++
		case nodeLost(p):
			lost = append(lost, fmt.Sprintf("pod %s on node %s", p.Name, p.Spec.NodeName))
		}
	}
	if len(lost) == 0 || int32(ready) >= want {
		return ""
	}
	verb := "are"
	if len(lost) == 1 {
		verb = "is"
	}
	return fmt.Sprintf("%d of its %d pods are ready: %s %s lost, its node no longer reporting to the cluster; the cluster replaces "+
		"a lost pod once its toleration of an unreachable node runs out (300 s, unless the agent's kubernetes.tolerations say otherwise)",
		ready, want, strings.Join(lost, ", "), verb)
}

// nodeLost reports whether p reads as a pod of a lost node: the node
// controller has marked it not ready, while its containers, as the node's
// kubelet last reported them, are ready. A kubelet never reports a pod
// that way of its own (its pods have no readiness gates).
func nodeLost(p corev1.Pod) bool {
	status := func(t corev1.PodConditionType) corev1.ConditionStatus {
		if i := slices.IndexFunc(p.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == t }); i >= 0 {
			return p.Status.Conditions[i].Status
		}
		return ""
	}
	return status(corev1.PodReady) == corev1.ConditionFalse && status(corev1.ContainersReady) == corev1.ConditionTrue
}
