package kube

import (
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// The provider block attributes whose values reach an agent's Deployment,
// as AgentSettings and Agent.Settings name them.
const (
	settingBaseImage        = "kubernetes.base_image"
	settingImagePullPolicy  = "kubernetes.image_pull_policy"
	settingImagePullSecrets = "kubernetes.image_pull_secrets"
	settingResources        = "kubernetes.resources"
	settingStopGracePeriod  = "kubernetes.stop_grace_period"
)

// AgentSettings reads the settings off the Deployment the agent of cfg
// would have now, so that they compare equal to those Get reads off the
// one it has exactly when the pods would not change.
func (r *Runtime) AgentSettings(cfg *agentconfig.Config, w agentruntime.Workload, replicas int) map[string]string {
	b := blueprint{name: r.objectName(cfg.ID()), cfg: cfg}
	r.shape(&b, w, replicas)
	return r.settingsOf(r.deployment(b, 0, false, ""), sideObjects{budget: r.podDisruptionBudget(b), service: r.service(b), autoscaler: r.autoscaler(b)})
}

// settingsOf reads the provider's settings off the pod template of d, and
// those of the agent's other objects off them: off the live objects, so
// that one changed behind the provider's back is drift as well. An agent brought in its own image takes neither the base image
// nor its pull policy.
func (r *Runtime) settingsOf(d *appsv1.Deployment, side sideObjects) map[string]string {
	pod := d.Spec.Template.Spec
	if len(pod.Containers) == 0 {
		return nil
	}
	c := pod.Containers[0]
	secrets := make([]string, 0, len(pod.ImagePullSecrets))
	for _, s := range pod.ImagePullSecrets {
		secrets = append(secrets, s.Name)
	}
	settings := map[string]string{
		settingImagePullSecrets: strings.Join(secrets, ","),
		settingResources:        formatResources(c.Resources),
	}
	if g := pod.TerminationGracePeriodSeconds; g != nil {
		settings[settingStopGracePeriod] = (time.Duration(*g) * time.Second).String()
	}
	if _, brought := d.Annotations[annotationCardPaths]; !brought {
		settings[settingBaseImage] = c.Image
		settings[settingImagePullPolicy] = string(c.ImagePullPolicy)
	}
	workloadSettings(d.Spec.Template, settings)
	if side.budget != nil {
		settings[settingDisruptionBudget] = formatBudget(side.budget.Spec)
	}
	w := r.effectiveWorkload(d)
	if w.Service != nil {
		settings[settingService] = formatService(side.service, *w.Service)
	}
	if w.Rollout != nil {
		settings[settingRollout] = formatRollout(d)
	}
	if side.autoscaler != nil {
		settings[settingAutoscaling] = formatAutoscaler(side.autoscaler.Spec)
	}
	return settings
}

// formatResources writes requests and limits in one line, each quantity in
// its canonical form, as the API server gives it back.
func formatResources(req corev1.ResourceRequirements) string {
	list := func(rl corev1.ResourceList) string {
		parts := make([]string, 0, len(rl))
		for name, q := range rl {
			parts = append(parts, fmt.Sprintf("%s=%s", name, q.String()))
		}
		sort.Strings(parts)
		return strings.Join(parts, " ")
	}
	return "requests: " + list(req.Requests) + "; limits: " + list(req.Limits)
}
