package kube

import (
	"os"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// annotationCardPaths names, on a brought agent's Deployment, the paths its
// card is looked for at; the built-in host's Deployments do without it,
// serving at card.WellKnownPath.
const annotationCardPaths = "a2a/card-paths"

// pullPolicies maps [runtime] pull onto the cluster's image pull policies.
var pullPolicies = map[string]corev1.PullPolicy{
	agentconfig.PullMissing: corev1.PullIfNotPresent,
	agentconfig.PullAlways:  corev1.PullAlways,
	agentconfig.PullNever:   corev1.PullNever,
}

// asBrought turns c, the built-in host's container of b, into the agent the
// operator brings: its image, its command in place of the image's own (as
// the container adapter runs it) with the owned variables filled in, its
// [runtime.env] in the environment, and probes on the port it listens on.
// It returns the annotation naming where its card is looked for.
//
// An allowlisted variable the command or [runtime.env] references is
// handed on as the pod's $(NAME), which the kubelet fills in from the
// agent's Secret when the container starts, so that no value is ever in
// the Deployment; every other character is escaped from the kubelet's
// expansion.
func (b blueprint) asBrought(c *corev1.Container, owned launch.Owned) (cardPaths string) {
	rt := b.cfg.Runtime
	port := owned.Port
	x := podExpander{owned: owned.Values(), injected: b.injected, referenced: map[string]bool{}}
	c.Image = rt.Image
	c.ImagePullPolicy = pullPolicies[rt.PullPolicy()]
	// No command keeps the image's own.
	c.Args = nil
	for _, arg := range rt.Command {
		c.Args = append(c.Args, x.expand(arg))
	}
	names := make([]string, 0, len(rt.Env))
	for name := range rt.Env {
		names = append(names, name)
	}
	// Sorted, so that an unchanged config gives an unchanged pod template.
	sort.Strings(names)
	for _, name := range names {
		c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: x.expand(rt.Env[name])})
	}
	for i := range c.Env {
		if ref := c.Env[i].ValueFrom; ref != nil && ref.SecretKeyRef != nil && x.referenced[c.Env[i].Name] {
			// The agent's command needs it: a value gone by the time the pod
			// starts stops the pod with the reason, instead of passing the
			// agent a literal $(NAME).
			ref.SecretKeyRef.Optional = nil
		}
	}
	target := intstr.FromInt(port)
	c.Ports = []corev1.ContainerPort{{Name: portName, ContainerPort: int32(port), Protocol: corev1.ProtocolTCP}}
	c.ReadinessProbe.ProbeHandler = corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: target}}
	// Without a card_path the card may be at the 1.0 path or the 0.3 one,
	// and the cluster asks only one: it waits for the port, and the
	// runtime's probe looks at both paths.
	c.StartupProbe.ProbeHandler = corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: target}}
	if rt.CardPath != "" {
		c.StartupProbe.ProbeHandler = corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: rt.CardPath, Port: target}}
	}
	return strings.Join(rt.CardPaths(), ",")
}

// variablesOf is what the agent of cfg, reached at endpoint, is given: it
// listens on every address of its pod, at its [runtime] port or the
// adapter's.
func variablesOf(cfg *agentconfig.Config, endpoint string) launch.Owned {
	return launch.Owned{Host: launch.ListenAll, Port: cfg.Runtime.ListenPort(containerPort), AdvertisedURL: endpoint}
}

// checkBrought refuses a brought agent the adapter cannot run, and one
// whose command or [runtime.env] references a variable that has no value
// and no default, before anything is created. With the allowlist pending
// the variables are checked at apply.
func checkBrought(p agentruntime.Prepared, pending bool) error {
	cfg := p.Config
	if err := agentruntime.CheckImageAgent(cfg, agentruntime.AdapterKubernetes); err != nil || pending {
		return err
	}
	// The endpoint is not needed to tell whether every reference resolves.
	lookup := agentruntime.BroughtLookup(variablesOf(cfg, ""), p.InjectedEnv)
	if _, _, err := cfg.Runtime.Expanded(lookup); err != nil {
		return agentruntime.Errorf(agentruntime.KindInvalidConfig, "provision", cfg.ID(), err,
			"give [runtime] command and env a value for each: set the variable in the environment terraform runs in (allowlisted), or write a default as ${NAME:-default}")
	}
	return nil
}

// podExpander rewrites a brought agent's command and env for the pod
// spec; checkBrought has made sure every reference resolves.
type podExpander struct {
	owned      map[string]string // values the runtime sets
	injected   []string          // the allowlisted variables the config references
	referenced map[string]bool   // the allowlisted variables handed on as $(NAME)
}

func (x *podExpander) expand(s string) string {
	return agentconfig.Substitute(s, escapeKubelet, func(name, def string, hasDefault bool) string {
		if v, ok := x.owned[name]; ok {
			return escapeKubelet(v)
		}
		if slices.Contains(x.injected, name) {
			// Whether the variable has a value is decided now, as the
			// container adapter decides it when it creates the container;
			// the value itself is the one the Secret holds at the start.
			if _, set := os.LookupEnv(name); set || !hasDefault {
				x.referenced[name] = true
				return "$(" + name + ")"
			}
		}
		return escapeKubelet(def)
	})
}

// escapeKubelet keeps the kubelet from expanding $(NAME) in s: it reads
// $$ as a single $.
func escapeKubelet(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// cardPathsOf reads where the agent of Deployment annotations ann serves
// its card.
func cardPathsOf(ann map[string]string) []string {
	if paths := splitList(ann[annotationCardPaths]); len(paths) > 0 {
		return paths
	}
	return []string{card.WellKnownPath}
}
