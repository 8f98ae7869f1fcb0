package kube

import (
	"cmp"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// Resources are what an agent container requests and is limited to, as
// Kubernetes quantities such as "250m" or "0.5" of CPU and "128Mi" of
// memory.
type Resources struct {
	CPURequest    string
	MemoryRequest string
	CPULimit      string
	MemoryLimit   string
}

// withDefaults fills each empty field with DefaultResources'.
func (r Resources) withDefaults() Resources {
	for _, f := range []struct {
		field *string
		def   string
	}{
		{&r.CPURequest, DefaultResources.CPURequest}, {&r.MemoryRequest, DefaultResources.MemoryRequest},
		{&r.CPULimit, DefaultResources.CPULimit}, {&r.MemoryLimit, DefaultResources.MemoryLimit},
	} {
		if *f.field == "" {
			*f.field = f.def
		}
	}
	return r
}

// under is r with each field an agent's own resources set replaced.
func (r Resources) under(own agentruntime.Resources) Resources {
	return Resources{
		CPURequest: cmp.Or(own.CPURequest, r.CPURequest), MemoryRequest: cmp.Or(own.MemoryRequest, r.MemoryRequest),
		CPULimit: cmp.Or(own.CPULimit, r.CPULimit), MemoryLimit: cmp.Or(own.MemoryLimit, r.MemoryLimit),
	}
}

// validate refuses what the cluster would refuse when it admits a pod.
func (r Resources) validate() error {
	for _, s := range []struct{ setting, value string }{
		{"cpu_request", r.CPURequest}, {"memory_request", r.MemoryRequest}, {"cpu_limit", r.CPULimit}, {"memory_limit", r.MemoryLimit},
	} {
		if err := ValidateQuantity(s.setting, s.value); err != nil {
			return err
		}
	}
	if err := ValidateWithinLimit("cpu", r.CPURequest, r.CPULimit); err != nil {
		return err
	}
	return ValidateWithinLimit("memory", r.MemoryRequest, r.MemoryLimit)
}

// ValidateQuantity refuses a value of setting that is not a positive
// Kubernetes quantity.
func ValidateQuantity(setting, value string) error {
	q, err := resource.ParseQuantity(value)
	if err != nil {
		return fmt.Errorf("kubernetes resources.%s %q is not a quantity: write a number with an optional suffix, "+
			"such as \"250m\" or \"0.5\" (CPU cores) and \"128Mi\" or \"1Gi\" (bytes of memory)", setting, value)
	}
	if q.Sign() <= 0 {
		return fmt.Errorf("kubernetes resources.%s %q must be greater than zero", setting, value)
	}
	return nil
}

// ValidateWithinLimit refuses a request of a resource (cpu or memory)
// above its limit, which the cluster refuses. Quantities that do not parse
// pass: ValidateQuantity reports them.
func ValidateWithinLimit(name, request, limit string) error {
	if !exceeds(request, limit) {
		return nil
	}
	return fmt.Errorf("kubernetes resources: the %s request %s is above the %s limit %s, and a pod may not request more than its limit: "+
		"lower %s_request or raise %s_limit", name, request, name, limit, name, name)
}

// exceeds reports whether both quantities parse and the first is the
// greater.
func exceeds(a, b string) bool {
	qa, errA := resource.ParseQuantity(a)
	qb, errB := resource.ParseQuantity(b)
	return errA == nil && errB == nil && qa.Cmp(qb) > 0
}

// requirements are the container's resources; validate has accepted r.
func (r Resources) requirements() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(r.CPURequest),
			corev1.ResourceMemory: resource.MustParse(r.MemoryRequest),
		},
		Limits: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(r.CPULimit),
			corev1.ResourceMemory: resource.MustParse(r.MemoryLimit),
		},
	}
}
