package kube

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// rollingOut says why the Deployment's pods do not all run its current pod
// template, while they do not: a change is rolling out, or a rollout
// stopped part-way (cut short with the provider, or its new pods failing),
// and the agent still answers, if at all, from pods of an earlier spec. Its
// card answering then does not make the agent healthy: the next apply
// reads it unhealthy and brings it to its spec. nil once every pod is of
// the current template.
func rollingOut(d *appsv1.Deployment) error {
	s, want := d.Status, *d.Spec.Replicas
	switch {
	case s.ObservedGeneration < d.Generation:
		return fmt.Errorf("deployment %s/%s has changed, and the cluster has not acted on it yet", d.Namespace, d.Name)
	case s.UpdatedReplicas < want || s.Replicas > s.UpdatedReplicas:
		return fmt.Errorf("deployment %s/%s is rolling out: %d of its %d pods run its current spec, beside %d older ones",
			d.Namespace, d.Name, s.UpdatedReplicas, want, s.Replicas-s.UpdatedReplicas)
	}
	return nil
}
