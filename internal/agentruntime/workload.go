package agentruntime

import (
	"cmp"
	"maps"
)

// Workload shapes an agent's objects on a runtime that runs agents as
// workloads of a cluster (a WorkloadRunner, the kubernetes adapter): the
// labels and annotations its objects and pods carry, who its pods run as,
// where they may be scheduled and how important they are. A zero field
// leaves the runtime's own choice. Other runtimes take none: the provider
// refuses a workload for them at plan time.
type Workload struct {
	// Labels and Annotations go on the agent's objects and its pods, beside
	// the runtime's own, which they may not replace.
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	// ServiceAccount is the service account the pods run as, for instance
	// for a cloud's workload identity; its token is then mounted.
	ServiceAccount string `json:"serviceAccount,omitempty"`
	// NodeSelector restricts the pods to nodes with these labels.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Tolerations let the pods onto nodes with matching taints.
	Tolerations []Toleration `json:"tolerations,omitempty"`
	// PriorityClass names the pods' PriorityClass.
	PriorityClass string `json:"priorityClass,omitempty"`
	// TopologySpread spreads the pods across a topology; nil leaves the
	// runtime's default (across nodes, when the agent runs two or more).
	TopologySpread *TopologySpread `json:"topologySpread,omitempty"`
	// DisruptionBudget bounds the pods voluntary disruptions (a node's
	// drain) may take at once; nil leaves the runtime's default (one at a
	// time, when the agent runs two or more).
	DisruptionBudget *DisruptionBudget `json:"disruptionBudget,omitempty"`
	// Resources the agent's container requests and is limited to; each
	// empty field keeps the runtime's.
	Resources Resources `json:"resources,omitzero"`
	// Service shapes the agent's Service, for a gateway or mesh that
	// routes to it; nil leaves it as the runtime makes it.
	Service *Service `json:"service,omitempty"`
	// Autoscaling hands the agent's number of pods to an autoscaler,
	// between its bounds; Spec.Replicas is then not the runtime's to keep.
	Autoscaling *Autoscaling `json:"autoscaling,omitempty"`
	// Rollout says how many pods a rollout may add and take away at once;
	// nil leaves the runtime's (one added, none taken before its
	// replacement is available).
	Rollout *Rollout `json:"rollout,omitempty"`
}

// Rollout bounds a rolling update, each bound a number of pods ("1") or
// a percentage of them ("25%").
type Rollout struct {
	MaxSurge       string `json:"maxSurge"`
	MaxUnavailable string `json:"maxUnavailable"`
}

// Autoscaling scales an agent's pods on their CPU use.
type Autoscaling struct {
	MinReplicas int32 `json:"minReplicas"`
	MaxReplicas int32 `json:"maxReplicas"`
	// TargetCPUUtilization is the average CPU use, in percent of what the
	// pods request, the autoscaler keeps them at.
	TargetCPUUtilization int32 `json:"targetCPUUtilization"`
}

// Service is what a gateway reads off an agent's Service.
type Service struct {
	// AppProtocol names the protocol of the Service's port, such as
	// "kubernetes.io/h2c" (HTTP/2 without TLS, which carries gRPC too).
	AppProtocol string `json:"appProtocol,omitempty"`
	// Annotations go on the Service alone, beside the workload's.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Resources are Kubernetes quantities: "250m" or "0.5" of CPU, "128Mi" of
// memory.
type Resources struct {
	CPURequest    string `json:"cpuRequest,omitempty"`
	MemoryRequest string `json:"memoryRequest,omitempty"`
	CPULimit      string `json:"cpuLimit,omitempty"`
	MemoryLimit   string `json:"memoryLimit,omitempty"`
}

// TopologySpread spreads an agent's pods across the domains of a topology.
type TopologySpread struct {
	// TopologyKey is the node label whose values are the domains, such as
	// kubernetes.io/hostname (nodes) or topology.kubernetes.io/zone.
	TopologyKey string `json:"topologyKey"`
	// WhenUnsatisfiable is "ScheduleAnyway" (prefer a spread) or
	// "DoNotSchedule" (require it).
	WhenUnsatisfiable string `json:"whenUnsatisfiable"`
	// MaxSkew is how many more pods one domain may have than another.
	MaxSkew int32 `json:"maxSkew"`
}

// DisruptionBudget says how many of an agent's pods must stay, or how
// many may go, during voluntary disruptions: exactly one of the two is set,
// each an integer or a percentage ("50%").
type DisruptionBudget struct {
	MinAvailable   string `json:"minAvailable,omitempty"`
	MaxUnavailable string `json:"maxUnavailable,omitempty"`
}

// Toleration lets pods onto nodes with a matching taint.
type Toleration struct {
	Key string `json:"key,omitempty"`
	// Operator is "Equal" (the default) or "Exists".
	Operator string `json:"operator,omitempty"`
	Value    string `json:"value,omitempty"`
	// Effect is "NoSchedule", "PreferNoSchedule", "NoExecute", or empty for
	// all of them.
	Effect string `json:"effect,omitempty"`
	// Seconds, with effect NoExecute, is how long the pod stays on a node
	// once the taint appears; nil is for ever.
	Seconds *int64 `json:"seconds,omitempty"`
}

// IsZero reports whether w sets nothing.
func (w Workload) IsZero() bool {
	return len(w.Labels) == 0 && len(w.Annotations) == 0 && w.ServiceAccount == "" && len(w.NodeSelector) == 0 &&
		len(w.Tolerations) == 0 && w.PriorityClass == "" && w.TopologySpread == nil && w.DisruptionBudget == nil &&
		w.Resources == (Resources{}) && w.Service == nil && w.Autoscaling == nil && w.Rollout == nil
}

// RefuseWorkload is what a runtime that is no WorkloadRunner answers a
// spec with a workload: that it cannot run it, rather than run the agent
// without it.
func RefuseWorkload(op, id string, spec Spec) error {
	if spec.Workload.IsZero() {
		return nil
	}
	return Unsupported(op, id, "a kubernetes workload (labels, placement, autoscaling, ...) needs the kubernetes adapter (a kubernetes {} block in the provider)")
}

// WorkloadRunner is a runtime that takes Spec.Workload.
type WorkloadRunner interface {
	// CheckWorkload returns what is wrong with w, each problem under the
	// field it is about (as WorkloadProblem names it); none when w is
	// valid.
	CheckWorkload(w Workload) []WorkloadProblem
}

// WorkloadProblem is one thing wrong with a Workload: Field is the
// workload attribute's name as the provider writes it (labels,
// tolerations, ...), Index the element of a list it is about, or -1.
type WorkloadProblem struct {
	Field   string
	Index   int
	Message string
}

// Over is w over defaults: each setting w makes wins; a map's keys are
// merged, the keys w sets winning; a list or an object w sets replaces the
// default's whole.
func (w Workload) Over(defaults Workload) Workload {
	out := defaults
	out.Labels = MergeMaps(defaults.Labels, w.Labels)
	out.Annotations = MergeMaps(defaults.Annotations, w.Annotations)
	out.NodeSelector = MergeMaps(defaults.NodeSelector, w.NodeSelector)
	if w.ServiceAccount != "" {
		out.ServiceAccount = w.ServiceAccount
	}
	if w.PriorityClass != "" {
		out.PriorityClass = w.PriorityClass
	}
	if w.Tolerations != nil {
		out.Tolerations = w.Tolerations
	}
	out.TopologySpread = orDefault(w.TopologySpread, defaults.TopologySpread)
	out.DisruptionBudget = orDefault(w.DisruptionBudget, defaults.DisruptionBudget)
	out.Service = orDefault(w.Service, defaults.Service)
	out.Autoscaling = orDefault(w.Autoscaling, defaults.Autoscaling)
	out.Rollout = orDefault(w.Rollout, defaults.Rollout)
	out.Resources = Resources{
		CPURequest: cmp.Or(w.Resources.CPURequest, defaults.Resources.CPURequest), MemoryRequest: cmp.Or(w.Resources.MemoryRequest, defaults.Resources.MemoryRequest),
		CPULimit: cmp.Or(w.Resources.CPULimit, defaults.Resources.CPULimit), MemoryLimit: cmp.Or(w.Resources.MemoryLimit, defaults.Resources.MemoryLimit),
	}
	return out
}

// MergeMaps is under with over's entries over it; over itself when under
// is empty.
func MergeMaps(under, over map[string]string) map[string]string {
	if len(under) == 0 {
		return over
	}
	out := maps.Clone(under)
	maps.Copy(out, over)
	return out
}

func orDefault[T any](own, defaults *T) *T {
	if own != nil {
		return own
	}
	return defaults
}
