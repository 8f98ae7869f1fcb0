package kube

import (
	"fmt"
	"regexp"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// Defaults applied to empty Options fields.
const (
	DefaultNamespace       = "default"
	DefaultPullPolicy      = string(corev1.PullIfNotPresent)
	DefaultServiceType     = string(corev1.ServiceTypeClusterIP)
	DefaultStopGracePeriod = 10 * time.Second
	// DefaultScope is the scope of agents when Options names none.
	DefaultScope = "default"
	// DefaultUser is the uid and gid agent pods run as.
	DefaultUser = int64(65534)
	// DefaultReplicas is how many pods an agent runs when its spec asks
	// for none.
	DefaultReplicas = 1
)

// DefaultResources are what each agent container requests and is limited
// to unless Options say otherwise: the built-in host needs a few tens of
// megabytes.
var DefaultResources = Resources{CPURequest: "10m", MemoryRequest: "32Mi", CPULimit: "500m", MemoryLimit: "256Mi"}

// Options configure a Runtime; they mirror the provider block's kubernetes
// settings. An empty string or a zero duration selects the default.
type Options struct {
	// Kubeconfig is the kubeconfig file's path. Empty: the files KUBECONFIG
	// lists, then ~/.kube/config, as kubectl reads them.
	Kubeconfig string
	// Context is the kubeconfig context to use. Empty: its current context.
	Context string
	// Namespace holds the agents' objects; it must exist.
	Namespace string
	// BaseImage runs agents whose config names no [runtime] image: an image
	// whose entrypoint is the agent host (a2a-agent-host) of Version. The
	// cluster must be able to pull it, or have it already with PullPolicy
	// Never. Required.
	BaseImage string
	// Version is the provider's release: the host in every pod refuses to
	// serve unless it is of that release, which the pod's log then says.
	// Empty: the release is not checked.
	Version string
	// PullPolicy is the image pull policy: Always, IfNotPresent or Never.
	PullPolicy string
	// ServiceType is the type of each agent's Service: ClusterIP, NodePort
	// or LoadBalancer.
	ServiceType string
	// Scope separates the agents of different provider configurations that
	// share one namespace: it is a label on every object and part of its
	// name unless it is DefaultScope.
	Scope string
	// StopGracePeriod is how long an agent has to exit after SIGTERM.
	StopGracePeriod time.Duration
	// ImagePullSecrets name the Secrets of the namespace that the cluster
	// pulls the agents' image with.
	ImagePullSecrets []string
	// AdvertisedURL is the template of every agent's endpoint, such as
	// "https://{id}.agents.example.com": {id} is the agent id, {namespace}
	// the namespace and {scope} the scope. Empty: the Service's name in the
	// cluster.
	// An agent config's own [server] advertised_url wins over it.
	AdvertisedURL string
	// Replicas is how many pods an agent whose spec names no replicas runs.
	Replicas int
	// Resources are each agent container's requests and limits; empty
	// fields take DefaultResources'.
	Resources Resources
	// Workload is every agent's workload unless the agent's own says
	// otherwise (agentruntime.Workload.Over); its Resources are unused,
	// Resources being the runtime's.
	Workload agentruntime.Workload
	// AllowSystemPlacement lets the agents' workloads name the priority
	// classes Kubernetes reserves (system-node-critical,
	// system-cluster-critical) and place pods on control-plane nodes
	// (tolerate their taints, every taint, or select their role labels),
	// which CheckWorkload refuses otherwise: an agent is no part of the
	// cluster's own machinery, and the control-plane nodes hold the cluster's
	// keys.
	AllowSystemPlacement bool
	// StateDir is the runtime core's state dir: its locks serialise the
	// operations on each agent, and it keeps the logs of pods that are gone;
	// required.
	StateDir *statedir.Dir
}

// namespacePattern is a DNS-1123 label, what Kubernetes takes as a namespace.
var namespacePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// withDefaults fills empty fields and rejects values the cluster would
// refuse later, naming the provider attribute to fix.
func (o Options) withDefaults() (Options, error) {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.PullPolicy == "" {
		o.PullPolicy = DefaultPullPolicy
	}
	if o.ServiceType == "" {
		o.ServiceType = DefaultServiceType
	}
	if o.Scope == "" {
		o.Scope = DefaultScope
	}
	if o.StopGracePeriod <= 0 {
		o.StopGracePeriod = DefaultStopGracePeriod
	}
	if o.Replicas == 0 {
		o.Replicas = DefaultReplicas
	}
	o.Resources = o.Resources.withDefaults()
	if err := ValidateNamespace(o.Namespace); err != nil {
		return o, err
	}
	if err := ValidateScope(o.Scope); err != nil {
		return o, err
	}
	if err := ValidatePullPolicy(o.PullPolicy); err != nil {
		return o, err
	}
	if err := ValidateServiceType(o.ServiceType); err != nil {
		return o, err
	}
	for _, name := range o.ImagePullSecrets {
		if err := ValidatePullSecret(name); err != nil {
			return o, err
		}
	}
	if o.AdvertisedURL != "" {
		if err := ValidateAdvertisedURL(o.AdvertisedURL); err != nil {
			return o, err
		}
	}
	if o.Replicas < 1 {
		return o, fmt.Errorf("kubernetes replicas is %d: an agent runs at least one pod", o.Replicas)
	}
	if err := o.Resources.validate(); err != nil {
		return o, err
	}
	if problems := CheckDefaults(o.Workload, o.AllowSystemPlacement); len(problems) > 0 {
		return o, fmt.Errorf("kubernetes agent_defaults.%s: %s", problems[0].Field, problems[0].Message)
	}
	if o.BaseImage == "" {
		return o, fmt.Errorf("kubernetes base_image is empty: name an image whose entrypoint is the agent host of the provider's release, which the cluster can pull or already has")
	}
	return o, nil
}

// ValidateNamespace refuses a namespace name Kubernetes would refuse.
func ValidateNamespace(ns string) error {
	if !namespacePattern.MatchString(ns) {
		return fmt.Errorf("kubernetes namespace %q is not a valid namespace name: use lower case letters, digits and '-', at most 63, starting and ending with a letter or digit", ns)
	}
	return nil
}

// ValidateScope refuses a scope that cannot be part of an object name and
// a label value.
func ValidateScope(scope string) error {
	if !agentruntime.ValidScope(scope) {
		return fmt.Errorf("kubernetes scope %q is not usable: use lower case letters, digits and '-', at most 20, starting and ending with a letter or digit", scope)
	}
	return nil
}

// PullPolicies are the image pull policies Kubernetes knows.
var PullPolicies = []string{string(corev1.PullAlways), string(corev1.PullIfNotPresent), string(corev1.PullNever)}

// ValidatePullPolicy refuses a pull policy Kubernetes does not know.
func ValidatePullPolicy(p string) error {
	for _, known := range PullPolicies {
		if p == known {
			return nil
		}
	}
	return fmt.Errorf("kubernetes image_pull_policy %q is not one of Always, IfNotPresent or Never", p)
}

// ServiceTypes are the Service types an agent may get.
var ServiceTypes = []string{string(corev1.ServiceTypeClusterIP), string(corev1.ServiceTypeNodePort), string(corev1.ServiceTypeLoadBalancer)}

// ValidateServiceType refuses a Service type agents cannot get.
func ValidateServiceType(t string) error {
	for _, known := range ServiceTypes {
		if t == known {
			return nil
		}
	}
	return fmt.Errorf("kubernetes service_type %q is not one of ClusterIP, NodePort or LoadBalancer", t)
}

// ValidatePullSecret refuses an image pull secret name that cannot name
// a Secret.
func ValidatePullSecret(name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("kubernetes image_pull_secrets: %q cannot name a Secret: use lower case letters, digits, '-' and '.', "+
			"at most 253, starting and ending with a letter or digit", name)
	}
	return nil
}

// graceSeconds is the stop grace period in whole seconds, rounded up so an
// agent never gets less than asked for.
func (o Options) graceSeconds() int64 {
	return int64((o.StopGracePeriod + time.Second - 1) / time.Second)
}
