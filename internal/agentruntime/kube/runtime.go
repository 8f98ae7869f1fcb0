// Package kube is the runtime adapter that runs agents on a Kubernetes
// cluster, through the API server alone.
//
// Each agent is four objects of one name in one namespace: a Deployment
// (its pods, hardened), a Service (its stable address in the cluster), a
// ConfigMap (its config) and a Secret (its write-only values and the
// allowlisted variables, which the pods read by reference, so that no value
// is in the Deployment). The objects are the record: their labels carry the
// agent id, the scope and the config digest, and the Deployment's
// annotations what was provisioned, so a new provider process adopts what
// earlier ones created by label selector. A stopped agent is a Deployment
// scaled to zero. The card is probed through the API server's proxy to the
// Service, so the provider needs no route into the cluster. An agent the
// operator brings runs from its own image in the same hardened pods
// (external.go).
package kube

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
)

// Runtime runs agents on a Kubernetes cluster. It is safe for concurrent
// use, and several provider processes may share one namespace.
type Runtime struct {
	opts Options
	// stateDirID is the id of the state dir, which a creation names.
	stateDirID string
	rest       *rest.Config
	cs         kubernetes.Interface
	// proxy carries the runtime's credentials, for the API server's proxy
	// to agent Services.
	proxy *http.Client
	// oldNames holds, by agent id, the names of the agents seen under the
	// names of before (knownName).
	oldNames sync.Map
}

var (
	_ agentruntime.Runtime       = (*Runtime)(nil)
	_ agentruntime.ReplicaRunner = (*Runtime)(nil)
	_ agentruntime.Claimer       = (*Runtime)(nil)
)

// New connects to the cluster opts name and checks that its namespace exists.
func New(ctx context.Context, opts Options) (*Runtime, error) {
	const op = "configure kubernetes runtime"
	o, err := opts.withDefaults()
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindInvalidConfig, op, "", err)
	}
	if o.StateDir == nil {
		return nil, errors.New("kubernetes runtime: no state dir; open one with statedir.Open and pass it in Options.StateDir")
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.Kubeconfig != "" {
		rules.ExplicitPath = o.Kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context}).ClientConfig()
	// client-go's own words for these name KUBERNETES_MASTER (or quote a
	// stat), not the settings that choose a kubeconfig here.
	if err != nil && (clientcmd.IsEmptyConfig(err) || (o.Kubeconfig != "" && errors.Is(err, fs.ErrNotExist))) {
		return nil, agentruntime.Errorf(agentruntime.KindInvalidConfig, op, "", nil, "%s",
			noKubeconfig(o.Kubeconfig, os.Getenv(clientcmd.RecommendedConfigPathEnvVar) != "", rules.GetLoadingPrecedence()))
	}
	if err != nil {
		return nil, agentruntime.Errorf(agentruntime.KindInvalidConfig, op, "", err,
			"load the kubeconfig (kubeconfig %q, context %q; empty means KUBECONFIG, then ~/.kube/config, and its current context)", o.Kubeconfig, o.Context)
	}
	// Lists, probes and the waits of several agents at once would queue
	// behind client-go's default of 5 requests a second.
	cfg.QPS, cfg.Burst = 50, 100
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindInvalidConfig, op, "", err)
	}
	proxy, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindInvalidConfig, op, "", err)
	}
	dirID, err := o.StateDir.ID(ctx)
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindBackend, op, "", err)
	}
	r := &Runtime{opts: o, stateDirID: dirID, rest: cfg, cs: cs, proxy: proxy}
	_, err = cs.CoreV1().Namespaces().Get(ctx, o.Namespace, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, agentruntime.Errorf(agentruntime.KindInvalidConfig, op, "", nil,
			"namespace %q does not exist on the cluster at %s: create it (kubectl create namespace %s) or name another one", o.Namespace, cfg.Host, o.Namespace)
	case apierrors.IsForbidden(err):
		// Credentials confined to the namespace may not read it: the first
		// operation on an agent tells whether they suffice.
	case err != nil:
		return nil, r.clusterError(op, "", err)
	}
	return r, nil
}

// noKubeconfig says which kubeconfig files were looked for (the provider's
// kubeconfig setting, else the files KUBECONFIG lists, else
// ~/.kube/config), what was found of them, and how to name the right one.
func noKubeconfig(setting string, fromEnv bool, files []string) string {
	var looked string
	switch {
	case setting != "":
		looked = fmt.Sprintf("the provider's kubernetes kubeconfig, %q", setting)
	case fromEnv:
		looked = "the files KUBECONFIG lists (" + quoteAll(files) + ")"
	default:
		looked = "~/.kube/config (" + quoteAll(files) + "), as KUBECONFIG is unset"
	}
	var present []string
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			present = append(present, f)
		}
	}
	found := "none of them exists"
	switch {
	case len(present) == 1:
		found = quoteAll(present) + " names no cluster to connect to (no current-context, or a context whose cluster has no server)"
	case len(present) > 1:
		found = quoteAll(present) + " name no cluster to connect to (no current-context, or a context whose cluster has no server)"
	case len(files) == 1:
		found = "it does not exist"
	}
	return fmt.Sprintf("no kubeconfig to reach a cluster with: looked for %s, and %s. Set kubeconfig in the provider's kubernetes "+
		"block (kubernetes { kubeconfig = \"/path/to/kubeconfig\" }) or the KUBECONFIG variable to the cluster's kubeconfig file "+
		"(and context, if its current context is not that cluster)", looked, found)
}

func quoteAll(files []string) string {
	q := make([]string, len(files))
	for i, f := range files {
		q[i] = strconv.Quote(f)
	}
	return strings.Join(q, ", ")
}

// Identity names the cluster, and the namespace and scope the agents live in.
func (r *Runtime) Identity() agentruntime.Identity {
	return agentruntime.Identity{Adapter: agentruntime.AdapterKubernetes, Engine: r.rest.Host, Namespace: r.opts.Namespace, Scope: r.opts.Scope}
}

// Check applies every check Provision makes of the spec itself.
func (r *Runtime) Check(_ context.Context, spec agentruntime.Spec) (agentruntime.Prepared, error) {
	p, err := prepare(spec)
	if err == nil {
		err = r.refuseWorkload("check", p.ID, spec.Workload)
	}
	if err != nil {
		return agentruntime.Prepared{}, err
	}
	return p, nil
}

// prepareProvision makes the checks Provision and Roll make of spec first.
func prepareProvision(op string, spec agentruntime.Spec) (agentruntime.Prepared, error) {
	if err := agentruntime.RequireKnownAllowlist(op, spec); err != nil {
		return agentruntime.Prepared{}, err
	}
	return prepare(spec)
}

func prepare(spec agentruntime.Spec) (agentruntime.Prepared, error) {
	p, err := agentruntime.Prepare(spec)
	if err == nil && p.Config.Runtime.Brought() {
		err = checkBrought(p, spec.AllowlistPending)
	}
	if err != nil {
		return agentruntime.Prepared{}, err
	}
	return p, nil
}

// Provision creates or updates the agent's objects. A new agent's
// Deployment has no pods until Start; an agent that exists keeps running
// or stopped: a running one whose pods change rolls to new pods, each
// started only once the card of the one before answers, and one whose
// replicas alone change is scaled in place, keeping its pods, and
// returned once it runs that many. With spec.CreateOnly an agent that
// exists is refused instead, unless a create of the very same spec made
// it and died before anyone claimed it (claim.go): it is taken over.
func (r *Runtime) Provision(ctx context.Context, spec agentruntime.Spec) (agentruntime.Agent, error) {
	const op = "provision"
	p, err := prepareProvision(op, spec)
	if err == nil {
		err = r.refuseWorkload(op, p.ID, spec.Workload)
	}
	if err != nil {
		return agentruntime.Agent{}, err
	}
	id := p.ID
	unlock, name, existing, err := r.lockAndLocate(ctx, op, id)
	if unlock != nil {
		defer unlock()
	}
	if err != nil && !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return agentruntime.Agent{}, err
	}
	b := r.newBlueprint(p, spec, name)
	if spec.CreateOnly {
		b.creation = &creation{ConfigSHA256: p.Digest, EnvAllowlist: p.Allowlist, StateDir: r.stateDirID}
		if existing != nil && !r.takenOverBy(ctx, id, existing, *b.creation) {
			return agentruntime.Agent{}, agentruntime.ExistsError(op, id)
		}
	}
	data, err := r.place(ctx, op, &b, existing, p, spec.WriteOnly)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	switch {
	case existing == nil:
		if err := r.createDeployment(ctx, op, b); err != nil {
			return agentruntime.Agent{}, err
		}
		crashpoint.Hit("kube-provision-created")
	case b.creation != nil:
		// Taken over: this process is its creator now.
		if err := r.holdCreator(ctx, op, id); err != nil {
			return agentruntime.Agent{}, err
		}
	}
	if err := r.putObjects(ctx, op, id, r.objects(b, data)); err != nil {
		return agentruntime.Agent{}, err
	}
	if existing != nil {
		var before *appsv1.Deployment
		err := r.updateDeployment(ctx, op, id, func(d *appsv1.Deployment) {
			before = d.DeepCopy()
			running := *d.Spec.Replicas
			if running > 0 {
				// A running agent runs as many pods as asked for now.
				running = b.runningReplicas(running)
			}
			// Provisioned at once: the record names the rollout its pods do.
			want := r.deployment(b, running, wasStarted(d), d.Spec.Template.Labels[labelRollout])
			d.Labels, d.Annotations, d.Spec = want.Labels, want.Annotations, want.Spec
		})
		if err != nil {
			return agentruntime.Agent{}, err
		}
		crashpoint.Hit("kube-provision-updated")
		if err := r.waitScaled(ctx, op, id, before); err != nil {
			return agentruntime.Agent{}, err
		}
	}
	if err := r.putSideObjects(ctx, op, b); err != nil {
		return agentruntime.Agent{}, err
	}
	if b.creation == nil {
		// Provisioned by its owner, whose annotations carry no creation:
		// claimed.
		r.releaseCreator(ctx, id)
	}
	return r.Get(ctx, id)
}

// lockAndLocate takes the agent's lock, which unlock releases (nil when it
// was not taken), and locates its Deployment as locate does.
func (r *Runtime) lockAndLocate(ctx context.Context, op, id string) (unlock func(), name string, d *appsv1.Deployment, err error) {
	lock, err := r.lock(ctx, id)
	if err != nil {
		return nil, "", nil, err
	}
	name, d, err = r.locate(ctx, op, id)
	return lock.Unlock, name, d, err
}

// newBlueprint is the blueprint of the agent of p, named name, but for its
// port.
func (r *Runtime) newBlueprint(p agentruntime.Prepared, spec agentruntime.Spec, name string) blueprint {
	b := blueprint{name: name, cfg: p.Config, injected: p.InjectedEnv, writeOnly: p.WriteOnly, woVersion: p.WriteOnlyVersion, allowlist: p.Allowlist}
	r.shape(&b, spec.Workload, spec.Replicas)
	return b
}

// shape gives b the workload own over the runtime's defaults, and the
// pods it starts with: the autoscaler's least, else those asked for, else
// the runtime's default.
func (r *Runtime) shape(b *blueprint, own agentruntime.Workload, replicas int) {
	b.own, b.workload = own, own.Over(r.opts.Workload)
	b.replicas = startReplicas(b.workload, replicas, r.opts.Replicas)
}

// startReplicas is how many pods an agent of workload w starts with: the
// autoscaler's least, else those asked for, else the runtime's default.
func startReplicas(w agentruntime.Workload, asked, fallback int) int32 {
	if a := w.Autoscaling; a != nil {
		return a.MinReplicas
	}
	return int32(cmp.Or(asked, fallback))
}

// place gives b its port, that of existing when the agent has one, and
// returns its Secret's data.
func (r *Runtime) place(ctx context.Context, op string, b *blueprint, existing *appsv1.Deployment, p agentruntime.Prepared,
	writeOnly agentruntime.WriteOnlyValues) (map[string][]byte, error) {
	var err error
	if b.port, err = r.portFor(ctx, op, *b, existing, p); err != nil {
		return nil, err
	}
	data, err := secretData(*b, writeOnly)
	if err != nil {
		return nil, agentruntime.Errorf(agentruntime.KindBackend, op, p.ID, err, "encode the write-only values")
	}
	return data, nil
}

// createDeployment creates the agent's Deployment, without pods, marked
// with its creation when a create-only provision makes it. Its pods read
// the objects made after it: its name is the agent's, so the API server
// lets one creator through.
func (r *Runtime) createDeployment(ctx context.Context, op string, b blueprint) error {
	id := b.cfg.ID()
	// Refused before anything is made, rather than half made: an object of
	// another's under the agent's name, which put refuses.
	if err := r.checkNameFree(ctx, op, id, b.name); err != nil {
		return err
	}
	if b.creation != nil {
		// Held before the Deployment records the creation, so that no
		// other process of the state dir finds the agent's creator gone.
		if err := r.holdCreator(ctx, op, id); err != nil {
			return err
		}
	}
	_, err := r.cs.AppsV1().Deployments(r.opts.Namespace).Create(ctx, r.deployment(b, 0, false, ""), metav1.CreateOptions{FieldManager: managedByValue})
	if err != nil && b.creation != nil {
		// Nothing of the agent is this process's to create.
		r.releaseCreator(ctx, id)
	}
	switch {
	case apierrors.IsAlreadyExists(err) && b.creation != nil:
		return agentruntime.ExistsError(op, id)
	case apierrors.IsAlreadyExists(err):
		return agentruntime.Errorf(agentruntime.KindConflict, op, id, err,
			"another provider process created the agent at the same time; apply again")
	case err != nil:
		return r.clusterError(op, id, err)
	}
	return nil
}

// waitScaled waits, when the update of a running agent's Deployment from
// before changed its replicas and nothing of its pods, until the
// Deployment has that many available pods: the pods it had kept running,
// the ones added ready, the ones taken away on their way out. A change of
// the pods themselves rolls them out afresh, which is not waited for: the
// agent is restarted after provisioning.
func (r *Runtime) waitScaled(ctx context.Context, op, id string, before *appsv1.Deployment) error {
	after, err := r.getDeployment(ctx, op, id)
	if err != nil {
		return err
	}
	want := *after.Spec.Replicas
	if want == 0 || want == *before.Spec.Replicas || !equality.Semantic.DeepEqual(before.Spec.Template, after.Spec.Template) {
		return nil
	}
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if after, err = r.getDeployment(ctx, op, id); err != nil {
			return false, err
		}
		s := after.Status
		return s.ObservedGeneration >= after.Generation && s.Replicas == want && s.UpdatedReplicas == want && s.AvailableReplicas == want, nil
	})
	var rerr *agentruntime.Error
	switch {
	case err == nil || errors.As(err, &rerr):
		return err
	default:
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err,
			"deployment %s/%s has %d of its %d pods available after scaling: see kubectl -n %s describe deployment %s, and the events of its pods",
			r.opts.Namespace, after.Name, after.Status.AvailableReplicas, want, r.opts.Namespace, after.Name)
	}
}

// portFor is the port the config fixes, else the port the agent
// has (on its Deployment, else its Service), else preferred when no other agent of the scope has it, else the
// lowest port from firstServicePort that none has.
func (r *Runtime) portFor(ctx context.Context, op string, b blueprint, existing *appsv1.Deployment, p agentruntime.Prepared) (int, error) {
	if p.FixedPort > 0 {
		return p.FixedPort, nil
	}
	if existing != nil {
		if kept, err := strconv.Atoi(existing.Annotations[annotationPort]); err == nil && kept > 0 {
			return kept, nil
		}
	} else if svc, err := r.cs.CoreV1().Services(r.opts.Namespace).Get(ctx, b.name, metav1.GetOptions{}); err == nil &&
		r.checkOwned(op, p.ID, "service", svc) == nil && len(svc.Spec.Ports) == 1 {
		// A Deployment deleted by hand comes back on the port its Service kept.
		return int(svc.Spec.Ports[0].Port), nil
	}
	list, err := r.cs.AppsV1().Deployments(r.opts.Namespace).List(ctx, metav1.ListOptions{LabelSelector: r.scopeSelector()})
	if err != nil {
		return 0, r.clusterError(op, p.ID, err)
	}
	held := map[int]bool{}
	for _, d := range list.Items {
		if port, err := strconv.Atoi(d.Annotations[annotationPort]); err == nil && d.Labels[labelAgentID] != p.ID {
			held[port] = true
		}
	}
	if p.PreferredPort > 0 && !held[p.PreferredPort] {
		return p.PreferredPort, nil
	}
	port := firstServicePort
	for held[port] {
		port++
	}
	return port, nil
}

func wasStarted(d *appsv1.Deployment) bool { return d.Annotations[annotationStarted] != "" }

// replicasOf is how many pods the agent runs when started.
func replicasOf(d *appsv1.Deployment) int32 {
	if n, err := strconv.Atoi(d.Annotations[annotationReplicas]); err == nil && n > 0 {
		return int32(n)
	}
	return 1
}

// replicasRead is how many pods the agent runs when started, as Get
// reports it: for an autoscaled agent that runs, as many as it runs now.
func (r *Runtime) replicasRead(d *appsv1.Deployment) int32 {
	if r.effectiveWorkload(d).Autoscaling != nil && *d.Spec.Replicas > 0 {
		return *d.Spec.Replicas
	}
	return replicasOf(d)
}

// effectiveWorkload is the workload the Deployment records over the
// runtime's defaults: what shapes the agent's objects.
func (r *Runtime) effectiveWorkload(d *appsv1.Deployment) agentruntime.Workload {
	return workloadOf(d).Over(r.opts.Workload)
}

// DefaultReplicas is how many pods an agent whose spec asks for none runs
// behind its Service.
func (r *Runtime) DefaultReplicas() int { return r.opts.Replicas }

// Start scales the agent's Deployment up, its Secret first given the
// allowlisted variables' values this process sees now.
func (r *Runtime) Start(ctx context.Context, id string) error {
	const op = "start"
	lock, err := r.lock(ctx, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	d, err := r.getDeployment(ctx, op, id)
	if err != nil {
		return err
	}
	if *d.Spec.Replicas > 0 {
		pods, err := r.pods(ctx, op, id)
		if err != nil {
			return err
		}
		if failing(pods) == nil {
			return agentruntime.Errorf(agentruntime.KindAlreadyRunning, op, id, nil, "the agent is already running (deployment %s/%s)", d.Namespace, d.Name)
		}
		// Pods the cluster keeps retrying go first, so that the agent
		// starts afresh, with the values this process has now.
		if err := r.stop(ctx, op, id); err != nil {
			return err
		}
	}
	if err := r.refreshInjected(ctx, op, id, d.Name, splitList(d.Annotations[annotationInjectedEnv])); err != nil {
		return err
	}
	err = r.updateDeployment(ctx, op, id, func(d *appsv1.Deployment) {
		d.Spec.Replicas = ptr(replicasOf(d))
		d.Annotations[annotationStarted] = "true"
	})
	crashpoint.Hit("kube-start-scaled")
	return err
}

// Stop scales the agent's Deployment to zero and waits until its pods are
// gone, keeping what they logged; a stopped agent is success.
func (r *Runtime) Stop(ctx context.Context, id string) error {
	lock, err := r.lock(ctx, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	return r.stop(ctx, "stop", id)
}

func (r *Runtime) stop(ctx context.Context, op, id string) error {
	d, pods, err := r.deploymentAndPods(ctx, op, id)
	if err != nil {
		return err
	}
	// Followed from before the stop, each pod's log ends with its last
	// line, written on the way out, and survives the pod.
	capture := r.follow(ctx, pods)
	if *d.Spec.Replicas > 0 {
		if err := r.updateDeployment(ctx, op, id, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(int32(0)) }); err != nil {
			capture.cancel()
			return err
		}
	}
	waitErr := r.waitPodsGone(ctx, op, id)
	logs := capture.wait()
	if err := r.keepLogs(op, id, d.Name, logs); err != nil {
		return errors.Join(waitErr, err)
	}
	return waitErr
}

// waitPodsGone waits until no pod of the agent is left, for at most the
// grace period and the time the cluster takes to remove a pod. A pod of a
// lost node that is being deleted counts as gone: it takes no calls, and
// nothing removes it before its node reports again, which then stops it.
func (r *Runtime) waitPodsGone(ctx context.Context, op, id string) error {
	limit := r.opts.StopGracePeriod + time.Minute
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		pods, err := r.pods(ctx, op, id)
		return err == nil && !slices.ContainsFunc(pods, func(p corev1.Pod) bool { return p.DeletionTimestamp == nil || !nodeLost(p) }), nil
	})
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err,
			"the agent's pods were not gone within %s of being asked to stop: see kubectl -n %s get pods -l %s=%s", limit, r.opts.Namespace, labelAgentID, id)
	}
	return nil
}

// forgetLostPods removes from the API the agent's pods that are being
// deleted on a node that no longer reports to the cluster. No kubelet
// confirms their end while the node is lost, so the foreground deletion of
// the Deployment would wait for them for as long as the node stays away;
// as kubectl delete --force does, they are deleted at once, and their
// containers, if the node comes back, are stopped by its kubelet then.
func (r *Runtime) forgetLostPods(ctx context.Context, op, id string) error {
	pods, err := r.pods(ctx, op, id)
	if err != nil {
		return err
	}
	now := int64(0)
	for _, p := range pods {
		if p.DeletionTimestamp == nil || !nodeLost(p) {
			continue
		}
		err := r.cs.CoreV1().Pods(r.opts.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &now})
		if err != nil && !apierrors.IsNotFound(err) {
			return r.clusterError(op, id, err)
		}
	}
	return nil
}

// Get returns the agent as the cluster sees it, with its health.
func (r *Runtime) Get(ctx context.Context, id string) (agentruntime.Agent, error) {
	const op = "get"
	name, d, derr := r.locate(ctx, op, id)
	if derr != nil && !agentruntime.IsKind(derr, agentruntime.KindNotFound) {
		return agentruntime.Agent{}, derr
	}
	cm, err := r.cs.CoreV1().ConfigMaps(r.opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm, err = nil, nil
	}
	if err != nil {
		return agentruntime.Agent{}, r.clusterError(op, id, err)
	}
	if cm != nil && r.checkOwned(op, id, "configmap", cm) != nil {
		// Another's, which says nothing of this agent's config.
		cm = nil
	}
	if derr != nil {
		if cm == nil {
			r.sweepLocks(ctx, id)
		}
		return agentruntime.Agent{}, r.goneDeployment(id, cm, derr)
	}
	if _, err := provisionedConfig(d, cm); err != nil {
		return agentruntime.Agent{}, damagedConfig(op, id, err)
	}
	pods, err := r.pods(ctx, op, id)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	side, err := r.sideObjects(ctx, op, id, d)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	a := r.agent(ctx, d, cm, pods, side)
	if a.Running && len(a.InjectedEnv) > 0 {
		if a.ChangedEnv, err = r.changedEnv(ctx, op, id, d.Name, a.InjectedEnv); err != nil {
			return agentruntime.Agent{}, err
		}
	}
	return a, nil
}

// changedEnv names the injected variables whose value in the agent's
// Secret, which its pods take theirs from, is not the provider's now.
// A Secret gone or not the agent's tells nothing: starting the agent
// reports it.
func (r *Runtime) changedEnv(ctx context.Context, op, id, name string, injected []string) ([]string, error) {
	s, err := r.cs.CoreV1().Secrets(r.opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		s, err = nil, nil
	}
	if err != nil {
		return nil, r.clusterError(op, id, err)
	}
	if s != nil && r.checkOwned(op, id, "secret", s) != nil {
		// Another's, which says nothing of this agent's values.
		s = nil
	}
	if s == nil {
		return nil, nil
	}
	return agentruntime.ChangedEnv(injected, func(name string) (string, bool) {
		v, ok := s.Data[name]
		return string(v), ok
	}), nil
}

// damagedConfig is the error about an agent whose ConfigMap holds a config
// other than the one its Deployment records.
func damagedConfig(op, id string, err error) *agentruntime.Error {
	return agentruntime.Errorf(agentruntime.KindDamaged, op, id, nil,
		"%v: its last provision did not finish, or the configmap was changed outside Terraform; terraform apply provisions it again", err)
}

// goneDeployment is the error of Get for an agent without a Deployment:
// not found when nothing of it is left, and damaged when its ConfigMap
// outlives the Deployment (deleted by hand, or a deprovision cut short).
// Reported as damaged, the agent stays tracked: apply creates the
// Deployment again, and destroy removes what is left.
func (r *Runtime) goneDeployment(id string, cm *corev1.ConfigMap, notFound error) error {
	if cm == nil {
		return notFound
	}
	return agentruntime.Errorf(agentruntime.KindDamaged, "get", id, notFound,
		"the agent's deployment %s/%s is gone but its configmap is not (the deployment was deleted outside Terraform, "+
			"or its deletion was cut short); terraform apply creates it again, and terraform destroy removes what is left",
		r.opts.Namespace, cm.Name)
}

// provisionedConfig is the config the agent's ConfigMap holds, provided
// it is the one its Deployment records, by digest: the ConfigMap is put
// before the Deployment is updated, so a provision cut between the two
// leaves the ConfigMap ahead of the Deployment and of the pods. No
// ConfigMap, or none holding a config, is no config and no error.
func provisionedConfig(d *appsv1.Deployment, cm *corev1.ConfigMap) ([]byte, error) {
	if cm == nil {
		return nil, nil
	}
	raw, ok := cm.Data[configKey]
	if !ok {
		return nil, nil
	}
	if sum, want := agentconfig.Digest([]byte(raw)), d.Annotations[annotationConfigSHA]; sum != want {
		return nil, fmt.Errorf("configmap %s/%s holds a config (sha256 %s) other than the one deployment %s records (sha256 %s)",
			cm.Namespace, cm.Name, sum, d.Name, want)
	}
	return []byte(raw), nil
}

// Recover finds the agents of earlier processes by their labels; the
// cluster kept them, so they are adopted as they are.
func (r *Runtime) Recover(ctx context.Context) (agentruntime.Recovery, error) {
	list, err := r.cs.AppsV1().Deployments(r.opts.Namespace).List(ctx, metav1.ListOptions{LabelSelector: r.scopeSelector()})
	if err != nil {
		return agentruntime.Recovery{}, r.clusterError("recover", "", err)
	}
	ids := make([]string, 0, len(list.Items))
	for i := range list.Items {
		r.learnName(&list.Items[i])
		ids = append(ids, list.Items[i].Labels[labelAgentID])
	}
	sort.Strings(ids)
	return agentruntime.Recovery{Mode: agentruntime.Adopted, IDs: ids}, nil
}

// List returns every agent of this scope, sorted by id, probing the
// running ones concurrently: three list calls read every agent.
func (r *Runtime) List(ctx context.Context) ([]agentruntime.Agent, error) {
	s, err := r.Survey(ctx)
	return s.Agents, err
}

var _ agentruntime.Surveyor = (*Runtime)(nil)

// Survey returns what List returns and names each agent whose config
// cannot be read (its ConfigMap disagrees with its Deployment), which it
// lists without its config, as Get reports it damaged.
func (r *Runtime) Survey(ctx context.Context) (agentruntime.Survey, error) {
	const op = "list"
	opts := metav1.ListOptions{LabelSelector: r.scopeSelector()}
	deps, err := r.cs.AppsV1().Deployments(r.opts.Namespace).List(ctx, opts)
	if err != nil {
		return agentruntime.Survey{}, r.clusterError(op, "", err)
	}
	cms, err := r.cs.CoreV1().ConfigMaps(r.opts.Namespace).List(ctx, opts)
	if err != nil {
		return agentruntime.Survey{}, r.clusterError(op, "", err)
	}
	pods, err := r.cs.CoreV1().Pods(r.opts.Namespace).List(ctx, opts)
	if err != nil {
		return agentruntime.Survey{}, r.clusterError(op, "", err)
	}
	configs := map[string]*corev1.ConfigMap{}
	for i := range cms.Items {
		configs[cms.Items[i].Labels[labelAgentID]] = &cms.Items[i]
	}
	podsOf := map[string][]corev1.Pod{}
	for _, p := range pods.Items {
		podsOf[p.Labels[labelAgentID]] = append(podsOf[p.Labels[labelAgentID]], p)
	}
	side, err := r.allSideObjects(ctx, op, opts)
	if err != nil {
		return agentruntime.Survey{}, err
	}
	var s agentruntime.Survey
	s.Agents = make([]agentruntime.Agent, len(deps.Items))
	var wg sync.WaitGroup
	for i := range deps.Items {
		d := &deps.Items[i]
		id := d.Labels[labelAgentID]
		r.learnName(d)
		if _, err := provisionedConfig(d, configs[id]); err != nil {
			s.AddUnreadable(damagedConfig(op, id, err))
		}
		wg.Go(func() { s.Agents[i] = r.agent(ctx, d, configs[id], podsOf[id], side[id]) })
	}
	wg.Wait()
	sort.Slice(s.Agents, func(i, j int) bool { return s.Agents[i].ID < s.Agents[j].ID })
	sort.Slice(s.Unreadable, func(i, j int) bool { return s.Unreadable[i].ID < s.Unreadable[j].ID })
	return s, nil
}

// Deprovision deletes every object of the agent and waits until they and
// its pods are gone; an unknown id is success. Only objects labelled as
// the agent's are deleted, whatever their names: an object of another's
// under the agent's name stays.
func (r *Runtime) Deprovision(ctx context.Context, id string) error {
	const op = "deprovision"
	lock, err := r.lock(ctx, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	// The name tells where its logs are kept.
	name, _, err := r.locate(ctx, op, id)
	if err != nil && !agentruntime.IsKind(err, agentruntime.KindNotFound) && !agentruntime.IsKind(err, agentruntime.KindConflict) {
		return err
	}
	// The Deployment is gone once its ReplicaSets and pods are; the other
	// objects own nothing that needs waiting for.
	ns, foreground, background := r.opts.Namespace, metav1.DeletePropagationForeground, metav1.DeletePropagationBackground
	if err := deleteOwned(ctx, r, op, id, "deployment", r.cs.AppsV1().Deployments(ns), foreground); err != nil {
		return err
	}
	if err := deleteOwned(ctx, r, op, id, "service", r.cs.CoreV1().Services(ns), background); err != nil {
		return err
	}
	if err := deleteOwned(ctx, r, op, id, "secret", r.cs.CoreV1().Secrets(ns), background); err != nil {
		return err
	}
	if err := deleteOwned(ctx, r, op, id, "poddisruptionbudget", r.cs.PolicyV1().PodDisruptionBudgets(ns), background); err != nil {
		return err
	}
	if err := deleteOwned(ctx, r, op, id, "horizontalpodautoscaler", r.cs.AutoscalingV2().HorizontalPodAutoscalers(ns), background); err != nil {
		return err
	}
	crashpoint.Hit("kube-deprovision-deleted")
	if err := r.waitPodsGone(ctx, op, id); err != nil {
		return err
	}
	if err := r.forgetLostPods(ctx, op, id); err != nil {
		return err
	}
	sel := metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: r.selector(id)})}
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := r.cs.AppsV1().Deployments(ns).List(ctx, sel)
		return err == nil && len(list.Items) == 0, nil
	})
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "deployment %s/%s was not gone within a minute of its deletion", ns, name)
	}
	if err := r.removeLogs(op, id, name); err != nil {
		return err
	}
	crashpoint.Hit("kube-deprovision-drained")
	// Last: while it is left, Get reads the agent as damaged, so a
	// deprovision cut short stays tracked, under the name it had, until a
	// destroy finishes it.
	if err := deleteOwned(ctx, r, op, id, "configmap", r.cs.CoreV1().ConfigMaps(ns), background); err != nil {
		return err
	}
	r.oldNames.Delete(id)
	r.releaseCreator(ctx, id)
	// The agent is gone for good, and its lock file with it.
	if err := lock.Remove(); err != nil {
		return agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
	}
	return nil
}

// agent is the runtime's view of the agent's objects; running ones are
// probed.
func (r *Runtime) agent(ctx context.Context, d *appsv1.Deployment, cm *corev1.ConfigMap, pods []corev1.Pod, side sideObjects) agentruntime.Agent {
	ann := d.Annotations
	port, _ := strconv.Atoi(ann[annotationPort])
	a := agentruntime.Agent{
		ID:               d.Labels[labelAgentID],
		Name:             ann[annotationName],
		Endpoint:         ann[annotationEndpoint],
		Port:             port,
		ConfigSHA256:     ann[annotationConfigSHA],
		InjectedEnv:      splitList(ann[annotationInjectedEnv]),
		WriteOnly:        splitList(ann[annotationWriteOnly]),
		WriteOnlyVersion: ann[annotationWOVersion],
		EnvAllowlist:     ann[annotationAllowlist],
		Replicas:         int(r.replicasRead(d)),
		Unclaimed:        ann[annotationCreation] != "",
		Settings:         r.settingsOf(d, side),
		Workload:         workloadOf(d),
	}
	paths := cardPathsOf(ann)
	a.CardURL = card.CardURLAt(a.Endpoint, paths[0])
	// A config the Deployment does not record reads as none: Get says why.
	a.Config, _ = provisionedConfig(d, cm)
	a.Restarts = restarts(pods)
	switch failed := failing(pods); {
	case *d.Spec.Replicas > 0 && failed != nil:
		// Pods that cannot run (their agent exits, their image is missing)
		// are retried by the cluster for ever: the agent is not running, and
		// why is told, as a start that fails is.
		a.Health, a.CardError = agentruntime.HealthStopped, failed
	case *d.Spec.Replicas > 0:
		a.Running, a.Instance = true, instance(pods)
		a.Health = agentruntime.HealthUnhealthy
		if d.Spec.Template.Labels[labelRollout] != ann[annotationRollout] {
			// Its pods may run another spec than the record says.
			a.CardError = errors.New("the agent's pods are not those its record describes (a rollout cut short with the apply " +
				"that began it, or pods changed outside Terraform, such as by kubectl rollout undo): apply rolls it over to its config again")
			break
		}
		// Ready pods take calls; a pod counts as available only some
		// seconds later (podSettleSeconds).
		if d.Status.ReadyReplicas > 0 {
			check := r.probe(ctx, d.Name, port, paths)
			a.Card, a.CardError = check.Card, check.Err
			if check.Healthy() {
				a.Health = agentruntime.HealthHealthy
			}
		}
		if rolling := rollingOut(d); rolling != nil && a.Health == agentruntime.HealthHealthy {
			a.Health, a.CardError = agentruntime.HealthUnhealthy, rolling
		}
		if lost := degradation(pods, *d.Spec.Replicas); lost != "" && a.Health == agentruntime.HealthHealthy {
			a.Health, a.Degradation = agentruntime.HealthDegraded, lost
		}
	case wasStarted(d):
		a.Health = agentruntime.HealthStopped
	default:
		a.Health = agentruntime.HealthProvisioned
	}
	return a
}

// failureReasons are the states of a container the cluster retries
// without end: its program exits, or it cannot be made at all.
var failureReasons = map[string]bool{
	"CrashLoopBackOff": true, "ErrImagePull": true, "ImagePullBackOff": true, "ErrImageNeverPull": true,
	"InvalidImageName": true, "CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true,
}

// kubeletCatchingUp reports whether a container waits only for the kubelet
// to catch up with the API server, as a loaded node's kubelet reports when
// its cache of the pod's ConfigMap or Secret is not synced yet: it retries,
// and the agent is not at fault.
func kubeletCatchingUp(w *corev1.ContainerStateWaiting) bool {
	return w.Reason == "CreateContainerConfigError" && strings.Contains(w.Message, "failed to sync") && strings.Contains(w.Message, "cache")
}

// failing says why the agent's pods cannot run, when every pod that is not
// on its way out fails; nil while one may yet serve.
func failing(pods []corev1.Pod) error {
	var why []string
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		reason := containerFailure(agentStatus(p))
		if reason == "" {
			return nil
		}
		why = append(why, "pod "+p.Name+": "+strings.TrimSuffix(reason, ": "))
	}
	if len(why) == 0 {
		return nil
	}
	return errors.New(strings.Join(why, "; "))
}

// containerFailure says why the agent's container, of status c, cannot
// run; "" while it may yet serve.
func containerFailure(c corev1.ContainerStatus) string {
	last := c.LastTerminationState.Terminated
	switch {
	case c.State.Waiting != nil && failureReasons[c.State.Waiting.Reason] && !kubeletCatchingUp(c.State.Waiting):
		return c.State.Waiting.Reason + ": " + c.State.Waiting.Message
	case c.State.Terminated != nil && c.State.Terminated.ExitCode != 0:
		return fmt.Sprintf("the agent exited with status %d", c.State.Terminated.ExitCode)
	case (c.State.Waiting != nil || c.State.Running != nil && !c.Ready) && last != nil && last.ExitCode != 0:
		// Restarted after it failed, whatever it waits for now, or run
		// again and not ready yet: until it serves, it is the same failure
		// retried.
		return fmt.Sprintf("the agent exited with status %d", last.ExitCode)
	}
	return ""
}

// agentStatus is the status of the pod's agent container; zero before the
// kubelet reports one.
func agentStatus(p corev1.Pod) corev1.ContainerStatus {
	for _, c := range p.Status.ContainerStatuses {
		if c.Name == agentName {
			return c
		}
	}
	return corev1.ContainerStatus{}
}

// restarts sums the kubelet's restarts of the agent's container over the
// pods that are not on their way out.
func restarts(pods []corev1.Pod) int {
	n := 0
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			n += int(agentStatus(p).RestartCount)
		}
	}
	return n
}

// instance names the agent's pods that are not on their way out, sorted.
func instance(pods []corev1.Pod) string {
	var names []string
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// serviceProxy is the base URL of the API server's proxy to the agent's
// Service, named name, on port.
func (r *Runtime) serviceProxy(name string, port int) string {
	u, err := url.JoinPath(r.rest.Host, r.rest.APIPath, "api/v1/namespaces", r.opts.Namespace,
		"services", "http:"+name+":"+strconv.Itoa(port), "proxy")
	if err != nil {
		return ""
	}
	return u + "/"
}

// probe fetches the agent's card at paths, in turn, through the API
// server's proxy to its Service, named name: the advertised URL names the
// Service inside the cluster, which the provider may not reach.
func (r *Runtime) probe(ctx context.Context, name string, port int, paths []string) agentruntime.CardCheck {
	return agentruntime.CheckCardVia(ctx, r.proxy, r.serviceProxy(name, port), paths)
}

// getDeployment returns the agent's Deployment, wherever locate finds it,
// or a NotFound error.
func (r *Runtime) getDeployment(ctx context.Context, op, id string) (*appsv1.Deployment, error) {
	_, d, err := r.locate(ctx, op, id)
	return d, err
}

// deploymentNamed returns the Deployment named name when it is the
// agent's, or a NotFound error.
func (r *Runtime) deploymentNamed(ctx context.Context, op, id, name string) (*appsv1.Deployment, error) {
	d, err := r.cs.AppsV1().Deployments(r.opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, agentruntime.NotFound(op, id)
	}
	if err != nil {
		return nil, r.clusterError(op, id, err)
	}
	if err := r.checkOwned(op, id, "deployment", d); err != nil {
		return nil, err
	}
	if d.Spec.Replicas == nil {
		d.Spec.Replicas = ptr(int32(1))
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	return d, nil
}

// checkOwned refuses an object of the agent's name that this adapter did
// not create for the agent.
func (r *Runtime) checkOwned(op, id, kind string, m metav1.Object) error {
	if r.owns(id, m) {
		return nil
	}
	l := m.GetLabels()
	if l[labelManagedBy] != managedByValue {
		return agentruntime.Errorf(agentruntime.KindConflict, op, id, nil,
			"%s %s/%s was not created for this agent by terraform-provider-a2a: delete or rename it, or rename the agent", kind, m.GetNamespace(), m.GetName())
	}
	// Under the names of before, two agents could share one.
	return agentruntime.Errorf(agentruntime.KindConflict, op, id, nil,
		"%s %s/%s belongs to agent %q of scope %q, which has the name this agent needs: destroy that agent, or give this one another id",
		kind, m.GetNamespace(), m.GetName(), l[labelAgentID], l[labelScope])
}

// owns reports whether m is labelled as agent id's, of this runtime's
// scope.
func (r *Runtime) owns(id string, m metav1.Object) bool {
	l := m.GetLabels()
	return l[labelManagedBy] == managedByValue && l[labelScope] == r.opts.Scope && l[labelAgentID] == id
}

// updateDeployment applies change to the agent's Deployment, again on a
// fresh copy whenever another writer got there first.
func (r *Runtime) updateDeployment(ctx context.Context, op, id string, change func(*appsv1.Deployment)) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := r.getDeployment(ctx, op, id)
		if err != nil {
			return err
		}
		change(d)
		_, err = r.cs.AppsV1().Deployments(r.opts.Namespace).Update(ctx, d, metav1.UpdateOptions{FieldManager: managedByValue})
		return err
	})
	var rerr *agentruntime.Error
	if err == nil || errors.As(err, &rerr) {
		return err
	}
	return r.clusterError(op, id, err)
}

// refreshInjected gives the agent's Secret the values the allowlisted
// variables have in this process's environment now; the write-only values
// stay as provisioned.
func (r *Runtime) refreshInjected(ctx context.Context, op, id, name string, injected []string) error {
	api := r.cs.CoreV1().Secrets(r.opts.Namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := api.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := r.checkOwned(op, id, "secret", s); err != nil {
			return err
		}
		if s.Data, err = refreshedSecretData(s, injected); err != nil {
			return err
		}
		_, err = api.Update(ctx, s, metav1.UpdateOptions{FieldManager: managedByValue})
		return err
	})
	var rerr *agentruntime.Error
	switch {
	case err == nil || errors.As(err, &rerr):
		return err
	case apierrors.IsNotFound(err):
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err,
			"secret %s/%s of the agent is gone (deleted outside Terraform?): apply again to recreate it", r.opts.Namespace, name)
	default:
		return r.clusterError(op, id, err)
	}
}

// refreshedSecretData is the data of the agent's Secret s with the
// values the injected variables have in this process now, its write-only
// values kept.
func refreshedSecretData(s *corev1.Secret, injected []string) (map[string][]byte, error) {
	data, err := secretData(blueprint{injected: injected}, nil)
	if err != nil {
		return nil, err
	}
	if v, ok := s.Data[secretKey]; ok {
		data[secretKey] = v
	}
	return data, nil
}

// deploymentAndPods returns the agent's Deployment and its pods.
func (r *Runtime) deploymentAndPods(ctx context.Context, op, id string) (*appsv1.Deployment, []corev1.Pod, error) {
	d, err := r.getDeployment(ctx, op, id)
	if err != nil {
		return nil, nil, err
	}
	pods, err := r.pods(ctx, op, id)
	return d, pods, err
}

// pods lists the agent's pods.
func (r *Runtime) pods(ctx context.Context, op, id string) ([]corev1.Pod, error) {
	sel := metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: r.selector(id)})
	list, err := r.cs.CoreV1().Pods(r.opts.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, r.clusterError(op, id, err)
	}
	sort.Slice(list.Items, func(i, j int) bool {
		a, b := list.Items[i], list.Items[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	return list.Items, nil
}

// clusterError says what the API server answered and what to do about it.
func (r *Runtime) clusterError(op, id string, err error) error {
	switch {
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return agentruntime.Errorf(agentruntime.KindInvalidConfig, op, id, err,
			"the kubeconfig's credentials may not do this in namespace %q of the cluster at %s: grant them deployments, services, configmaps, secrets and pods (with pods/log, pods/proxy and services/proxy) there, or use another context",
			r.opts.Namespace, r.rest.Host)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "the Kubernetes API server at %s did not answer in time", r.rest.Host)
	default:
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "the Kubernetes API server at %s refused or failed the request", r.rest.Host)
	}
}

// lockKey names the agent's lock in the state dir, and its creator lock.
func (r *Runtime) lockKey(id string) string {
	return "kube-" + r.opts.Namespace + "-" + r.objectName(id)
}

// sweepLocks removes the lock files of an agent found wholly gone: a
// deprovision cut short after it deleted the agent's last object, but
// before its lock files went, leaves them with nothing to track them.
func (r *Runtime) sweepLocks(ctx context.Context, id string) {
	r.opts.StateDir.SweepCreator(ctx, r.lockKey(id))
	r.opts.StateDir.SweepKey(ctx, r.lockKey(id))
}

// lock gives one operation at a time on an agent, within this process and
// between processes sharing the state dir; the API server's unique names
// and resource versions guard against any other writer.
func (r *Runtime) lock(ctx context.Context, id string) (*statedir.KeyLock, error) {
	lock, err := r.opts.StateDir.LockKey(ctx, r.lockKey(id))
	if err != nil {
		return nil, agentruntime.Errorf(agentruntime.KindBackend, "lock", id, err, "another operation on the agent did not finish in time")
	}
	return lock, nil
}

// splitList reads a comma-separated annotation; empty is no names.
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// PlannedAddress is the address Provision gives the agent: the URL its
// config or the runtime's template advertises, whatever its port, else,
// when the config fixes its port, the Service's name in the cluster. A
// brought agent's card URL is at its first card path.
func (r *Runtime) PlannedAddress(cfg *agentconfig.Config) (agentruntime.Address, bool) {
	a, ok := agentruntime.FixedAddress(cfg, r.serviceHost(r.knownName(cfg.ID())))
	if endpoint := r.advertised(cfg); endpoint != "" {
		a, ok = agentruntime.Address{Endpoint: endpoint, CardURL: card.CardURL(endpoint), Port: cfg.Server.HTTPPort}, true
	}
	if ok && cfg.Runtime.Brought() {
		a.CardURL = card.CardURLAt(a.Endpoint, cfg.Runtime.CardPaths()[0])
	}
	return a, ok
}
