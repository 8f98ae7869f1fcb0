package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/writeonly"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// The agent host listens on this port inside every pod; the Service maps
// the agent's port to the pod's port of portName, this one or the port a
// brought agent listens on.
const (
	containerPort = 8080
	portName      = "http"
)

// firstServicePort is the lowest Service port an agent whose config sets
// no [server] http_port gets. Every Service has an address of its own, but
// the agents of a scope get distinct ports all the same, so that a port
// names one agent as it does on the other adapters.
const firstServicePort = 8080

// configKey is the key in the agent's ConfigMap of the config that serves,
// which Get reads. Pods fill launch.ConfigEnvVar from a key of their
// config's own (podConfigKey), so that a rollout's new pods read theirs
// while the old pods, and the record, keep theirs until it is done.
const configKey = "config.toml"

// podConfigKey is the ConfigMap key the pods running cfg read it from.
func podConfigKey(cfg *agentconfig.Config) string {
	return "config-" + cfg.SHA256()[:16] + ".toml"
}

// The write-only values live in the agent's Secret under secretKey, mounted
// as the file launch.WriteOnlyFilePath; the Secret's other keys are the
// allowlisted variables, each passed to the pod by reference. No value is
// ever in the Deployment, so reading it shows none.
const secretKey = "env.json"

// Labels on every object the adapter creates: the agent's objects are found
// by them, whatever their names.
const (
	labelManagedBy = "app.kubernetes.io/managed-by"
	managedByValue = "terraform-provider-a2a"
	labelScope     = "a2a/scope"
	labelAgentID   = "a2a/agent-id"
	// labelConfigSHA is the config digest cut to a label value's length;
	// annotationConfigSHA holds it whole.
	labelConfigSHA = "a2a/config-sha256"
	// labelRollout, on the pods' template, names the rollout that made
	// them (none for pods made by provisioning and starting alone); the
	// Deployment's annotationRollout names the one whose pods its record
	// describes. They differ while a rollout is under way, or was cut short.
	labelRollout = "a2a/rollout"
)

// Annotations on the Deployment: the record of what was provisioned.
const (
	annotationName        = "a2a/agent-name"
	annotationConfigSHA   = "a2a/config-sha256"
	annotationPort        = "a2a/port"
	annotationEndpoint    = "a2a/endpoint"
	annotationInjectedEnv = "a2a/injected-env"
	annotationAllowlist   = "a2a/env-allowlist"
	annotationWriteOnly   = "a2a/write-only-env"
	annotationWOVersion   = "a2a/write-only-version"
	// annotationReplicas is how many pods the agent runs when started.
	annotationReplicas = "a2a/replicas"
	// annotationStarted marks an agent that has run, so that it reads
	// stopped, not provisioned, once scaled to zero.
	annotationStarted = "a2a/started"
	annotationRollout = "a2a/rollout"
)

// How the pods of a running agent are replaced: one more pod than asked
// for at a time, and none taken away before its replacement is available,
// that is ready for podSettleSeconds: long enough for a rollout to ask its
// card before an old pod goes, and for the Service to send calls to it.
// A rollout that makes no progress for progressDeadlineSeconds (a pod
// gets that long to answer its startup probe) is marked failed by the
// cluster. An old pod stays in its Service's endpoints until told to
// stop; the pod then waits drainSeconds, while the endpoints drop it,
// before its agent gets SIGTERM.
const (
	podSettleSeconds        = 2
	progressDeadlineSeconds = 180
	drainSeconds            = 2
)

// objectName is the name of all four objects of agent id: deterministic,
// so that the API server itself refuses a second agent of one id, a DNS
// label, as a Service name must be, and no other agent's of any scope.
func (r *Runtime) objectName(id string) string {
	if r.opts.Scope == DefaultScope {
		return agentruntime.ObjectName("", id)
	}
	return agentruntime.ObjectName(r.opts.Scope, id)
}

// oldObjectName is the name objects had before names told scopes apart,
// when scope "rt" with id "kube" and the default scope with id "rt-kube"
// shared one. Objects cannot be renamed, and a new name would move the
// agent's Service and so its address: an agent created then keeps its
// name until it is destroyed (locate).
func (r *Runtime) oldObjectName(id string) string {
	name := "a2a-" + id
	if r.opts.Scope != DefaultScope {
		name = "a2a-" + r.opts.Scope + "-" + id
	}
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return strings.TrimRight(name[:54], "-") + "-" + hex.EncodeToString(sum[:])[:8]
}

// selector is the labels of every object and pod of agent id.
func (r *Runtime) selector(id string) map[string]string {
	return map[string]string{labelManagedBy: managedByValue, labelScope: r.opts.Scope, labelAgentID: id}
}

// scopeSelector selects every object of the runtime's scope.
func (r *Runtime) scopeSelector() string {
	return labelManagedBy + "=" + managedByValue + "," + labelScope + "=" + r.opts.Scope
}

// serviceHost is the name the agent's Service, named name, has inside the
// cluster.
func (r *Runtime) serviceHost(name string) string {
	return name + "." + r.opts.Namespace + ".svc.cluster.local"
}

// blueprint is everything the agent's objects are built from.
type blueprint struct {
	name      string // of every object: objectName, or the old one the agent has
	cfg       *agentconfig.Config
	injected  []string // names the config may receive
	allowlist string   // name of the allowlist provisioned with; empty for none
	writeOnly []string // names of the write-only values
	woVersion string   // the version of those values
	port      int      // the Service's port
	replicas  int32    // pods when started
	// own is the workload the agent was given, which its Deployment
	// records; workload, what shapes its objects: own over the runtime's
	// defaults.
	own, workload agentruntime.Workload
	// creation marks a Deployment a create-only provision makes (claim.go).
	creation *creation
}

// runningReplicas is how many pods a running agent that runs now pods
// runs once provisioned or rolled: as many as asked for, or, autoscaled, as
// many as the autoscaler keeps, within its bounds.
func (b blueprint) runningReplicas(now int32) int32 {
	a := b.workload.Autoscaling
	if a == nil {
		return b.replicas
	}
	return min(max(now, a.MinReplicas), a.MaxReplicas)
}

// mostReplicas is the most pods the agent runs at once.
func (b blueprint) mostReplicas() int32 { return mostReplicas(b.workload, b.replicas) }

// mostReplicas is the most pods an agent of workload w, asking for
// replicas, runs at once: the autoscaler's most, else those asked for.
func mostReplicas(w agentruntime.Workload, replicas int32) int32 {
	if a := w.Autoscaling; a != nil {
		return a.MaxReplicas
	}
	return replicas
}

// endpoint is the config's advertised_url, else the runtime's advertised
// URL for the agent, else the Service's address in the cluster.
func (r *Runtime) endpoint(b blueprint) string {
	return card.Endpoint(r.advertised(b.cfg), r.serviceHost(b.name), b.port)
}

// meta is the metadata of each of the agent's objects: its selector's
// labels, over the workload's labels and annotations.
func (r *Runtime) meta(b blueprint) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: b.name, Namespace: r.opts.Namespace,
		Labels: agentruntime.MergeMaps(b.workload.Labels, r.selector(b.cfg.ID())), Annotations: maps.Clone(b.workload.Annotations)}
}

// configMap holds b's config as the one that serves and as the one its
// pods read.
func (r *Runtime) configMap(b blueprint) *corev1.ConfigMap {
	raw := string(b.cfg.Raw())
	return &corev1.ConfigMap{ObjectMeta: r.meta(b), Data: map[string]string{configKey: raw, podConfigKey(b.cfg): raw}}
}

// secretData is the Secret's content: the write-only values as the file
// the agent host reads them from, and the allowlisted variables that have
// a value in this process's environment now.
func secretData(b blueprint, writeOnly map[string]string) (map[string][]byte, error) {
	data := map[string][]byte{}
	if len(writeOnly) > 0 {
		file, err := writeonly.Encode(writeOnly)
		if err != nil {
			return nil, err
		}
		data[secretKey] = file
	}
	for _, name := range b.injected {
		if v, ok := os.LookupEnv(name); ok {
			data[name] = []byte(v)
		}
	}
	return data, nil
}

func (r *Runtime) secret(b blueprint, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: r.meta(b), Type: corev1.SecretTypeOpaque, Data: data}
}

func (r *Runtime) service(b blueprint) *corev1.Service {
	id := b.cfg.ID()
	meta := r.meta(b)
	var appProtocol *string
	if s := b.workload.Service; s != nil {
		meta.Annotations = agentruntime.MergeMaps(meta.Annotations, s.Annotations)
		if s.AppProtocol != "" {
			appProtocol = ptr(s.AppProtocol)
		}
	}
	return &corev1.Service{
		ObjectMeta: meta,
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceType(r.opts.ServiceType),
			Selector: r.selector(id),
			Ports: []corev1.ServicePort{{
				Name: "http", Protocol: corev1.ProtocolTCP,
				// By name: each pod's own port, so that during a rollout the
				// Service reaches old and new pods even when they listen
				// on different ports.
				Port: int32(b.port), TargetPort: intstr.FromString(portName), AppProtocol: appProtocol,
			}},
		},
	}
}

// deployment is the agent's Deployment with replicas pods, hardened: no
// root, no capabilities, no privilege escalation, a read-only root
// filesystem, the runtime's default seccomp profile and resource limits.
// Its pods and its record name rollout (empty: none).
func (r *Runtime) deployment(b blueprint, replicas int32, started bool, rollout string) *appsv1.Deployment {
	id, name := b.cfg.ID(), b.name
	endpoint := r.endpoint(b)
	annotations := map[string]string{
		annotationName:        b.cfg.Agent.Name,
		annotationConfigSHA:   b.cfg.SHA256(),
		annotationPort:        strconv.Itoa(b.port),
		annotationEndpoint:    endpoint,
		annotationInjectedEnv: strings.Join(b.injected, ","),
		annotationAllowlist:   b.allowlist,
		annotationWriteOnly:   strings.Join(b.writeOnly, ","),
		annotationWOVersion:   b.woVersion,
		annotationReplicas:    strconv.Itoa(int(b.replicas)),
	}
	if started {
		annotations[annotationStarted] = "true"
	}
	if b.creation != nil {
		annotations[annotationCreation] = b.creation.annotation()
	}
	if record := workloadRecord(b.own); record != "" {
		annotations[annotationWorkload] = record
	}
	podLabels := maps.Clone(r.selector(id))
	podLabels[labelConfigSHA] = b.cfg.SHA256()[:32]
	if rollout != "" {
		annotations[annotationRollout] = rollout
		podLabels[labelRollout] = rollout
	}
	owned := variablesOf(b.cfg, endpoint)
	host := launch.Host{Owned: owned, ProviderVersion: r.opts.Version}
	if len(b.writeOnly) > 0 {
		host.WriteOnlyFile = launch.WriteOnlyFilePath
	}
	args := host.Args()
	env := []corev1.EnvVar{{Name: launch.ConfigEnvVar, ValueFrom: &corev1.EnvVarSource{
		ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: podConfigKey(b.cfg)},
	}}}
	for _, v := range b.injected {
		// Optional: a variable without a value when the Secret was written
		// is left unset, as the agent host expects.
		env = append(env, corev1.EnvVar{Name: v, ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: v, Optional: ptr(true)},
		}})
	}
	for name, value := range owned.All() {
		env = append(env, corev1.EnvVar{Name: name, Value: escapeKubelet(value)})
	}
	volumes := []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
		Medium: corev1.StorageMediumMemory, SizeLimit: ptr(resource.MustParse("64Mi")),
	}}}}
	mounts := []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}}
	if len(b.writeOnly) > 0 {
		volumes = append(volumes, corev1.Volume{Name: "write-only", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: name, Items: []corev1.KeyToPath{{Key: secretKey, Path: launch.WriteOnlyFileName}},
			// Readable by the pod's group (its fsGroup) alone.
			DefaultMode: ptr(int32(0o440)),
		}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "write-only", MountPath: launch.WriteOnlyDir, ReadOnly: true})
	}
	probePath := card.WellKnownPath
	container := corev1.Container{
		Name:            "agent",
		Image:           r.opts.BaseImage,
		ImagePullPolicy: corev1.PullPolicy(r.opts.PullPolicy),
		Args:            args,
		Env:             env,
		Ports:           []corev1.ContainerPort{{Name: portName, ContainerPort: containerPort, Protocol: corev1.ProtocolTCP}},
		VolumeMounts:    mounts,
		// A container that exits in failure keeps the tail of its log in
		// the pod's status, which outlives the container: the kubelet may
		// have removed the crashed container, and its log with it, by the
		// time a failed start asks why.
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		// A pod is ready once its card answers. The agent host logs every
		// request, so the card is asked only until it first answers; the
		// port is watched after that, which logs nothing.
		StartupProbe: &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: probePath, Port: intstr.FromInt32(containerPort)}},
			PeriodSeconds: 1, TimeoutSeconds: 2, FailureThreshold: 120,
		},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(containerPort)}},
			PeriodSeconds: 5, TimeoutSeconds: 2, FailureThreshold: 2,
		},
		Resources: r.opts.Resources.under(b.workload.Resources).requirements(),
		Lifecycle: r.drain(),
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr(false),
			ReadOnlyRootFilesystem:   ptr(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
	if b.cfg.Runtime.Brought() {
		annotations[annotationCardPaths] = b.asBrought(&container, owned)
	}
	grace := r.opts.graceSeconds()
	meta := r.meta(b)
	meta.Annotations = agentruntime.MergeMaps(meta.Annotations, annotations)
	d := &appsv1.Deployment{
		ObjectMeta: meta,
		Spec: appsv1.DeploymentSpec{
			Replicas:                &replicas,
			Selector:                &metav1.LabelSelector{MatchLabels: r.selector(id)},
			Strategy:                appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: rollingUpdate(b.workload.Rollout)},
			MinReadySeconds:         podSettleSeconds,
			ProgressDeadlineSeconds: ptr(int32(progressDeadlineSeconds)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{container},
					ImagePullSecrets:              r.pullSecrets(),
					Volumes:                       volumes,
					TerminationGracePeriodSeconds: &grace,
					AutomountServiceAccountToken:  ptr(false),
					EnableServiceLinks:            ptr(false),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr(true),
						RunAsUser:      ptr(DefaultUser),
						RunAsGroup:     ptr(DefaultUser),
						FSGroup:        ptr(DefaultUser),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
				},
			},
		},
	}
	applyWorkload(b.workload, b.mostReplicas(), r.selector(id), &d.Spec.Template)
	return d
}

// drain holds a pod told to stop for drainSeconds before its agent gets
// SIGTERM, so that calls the Service still sends it are answered, as long
// as the grace period leaves the agent a second to exit.
func (r *Runtime) drain() *corev1.Lifecycle {
	if r.opts.graceSeconds() <= drainSeconds {
		return nil
	}
	return &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: drainSeconds}}}
}

// pullSecrets references the Secrets the cluster pulls the image with.
func (r *Runtime) pullSecrets() []corev1.LocalObjectReference {
	var refs []corev1.LocalObjectReference
	for _, name := range r.opts.ImagePullSecrets {
		refs = append(refs, corev1.LocalObjectReference{Name: name})
	}
	return refs
}

func ptr[T any](v T) *T { return &v }
