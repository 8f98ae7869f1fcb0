package kube

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
)

var _ agentruntime.Roller = (*Runtime)(nil)

// How much of what a failed rollout's new pods logged, and of the events
// recorded of them, its error carries; and how long putting the previous
// pods' spec back may take, once the rollout's own time is up.
const (
	rolloutLogLines = 50
	rolloutEvents   = 20
	rollBackTimeout = time.Minute
)

// revisionAnnotation is where the cluster numbers a Deployment's
// ReplicaSets, the newest highest.
const revisionAnnotation = "deployment.kubernetes.io/revision"

// Roll provisions spec over the running agent and has its Deployment
// replace every pod with one running it, one more pod than asked for at a
// time and none taken away before its replacement's card answers: see
// agentruntime.Roller. The Deployment's record, and the config Get reads,
// describe the previous pods until the rollout is done. A rollout that
// fails puts the pods' template, ConfigMap, Secret and Service back as
// they were; the previous pods, never taken away, serve on. An agent
// without pods to replace, stopped or without a Deployment, is
// provisioned as Provision does.
func (r *Runtime) Roll(ctx context.Context, spec agentruntime.Spec) (agentruntime.Agent, error) {
	const op = "roll"
	p, err := prepareProvision(op, spec)
	if err == nil {
		err = r.refuseWorkload(op, p.ID, spec.Workload)
	}
	if err != nil {
		return agentruntime.Agent{}, err
	}
	switch rolled, err := r.rollRunning(ctx, op, p, spec); {
	case errors.Is(err, errNothingToRoll):
		return r.Provision(ctx, spec)
	case err != nil:
		return agentruntime.Agent{}, err
	default:
		return rolled, nil
	}
}

// errNothingToRoll: the agent has no pods to replace.
var errNothingToRoll = errors.New("no pods to roll")

// rollRunning rolls the agent of p, under its lock, when it runs.
func (r *Runtime) rollRunning(ctx context.Context, op string, p agentruntime.Prepared, spec agentruntime.Spec) (agentruntime.Agent, error) {
	id := p.Config.ID()
	unlock, name, existing, err := r.lockAndLocate(ctx, op, id)
	if unlock != nil {
		defer unlock()
	}
	switch {
	case agentruntime.IsKind(err, agentruntime.KindNotFound):
		return agentruntime.Agent{}, errNothingToRoll
	case err != nil:
		return agentruntime.Agent{}, err
	case *existing.Spec.Replicas == 0:
		return agentruntime.Agent{}, errNothingToRoll
	}
	b := r.newBlueprint(p, spec, name)
	data, err := r.place(ctx, op, &b, existing, p, spec.WriteOnly)
	if err != nil {
		return agentruntime.Agent{}, err
	}
	if err := r.roll(ctx, op, b, data, existing); err != nil {
		return agentruntime.Agent{}, err
	}
	// Rolled by its owner, as Provision provisions it: claimed.
	r.releaseCreator(ctx, id)
	return r.Get(ctx, id)
}

// objects are b's objects besides its Deployment, the Secret holding data.
func (r *Runtime) objects(b blueprint, data map[string][]byte) agentObjects {
	return agentObjects{configMap: r.configMap(b), secret: r.secret(b, data), service: r.service(b)}
}

// roll rolls the pods of the agent, whose Deployment was before, over to
// b's, and then records b: see Roll.
func (r *Runtime) roll(ctx context.Context, op string, b blueprint, data map[string][]byte, before *appsv1.Deployment) error {
	id := b.cfg.ID()
	prior, err := r.currentObjects(ctx, op, id, b)
	if err != nil {
		return err
	}
	want := r.objects(b, data)
	if prior.configMap != nil {
		// The config that serves stays where Get reads it, and the pods
		// running now keep reading theirs.
		cm := maps.Clone(prior.configMap.Data)
		cm[podConfigKey(b.cfg)] = string(b.cfg.Raw())
		want.configMap.Data = cm
	}
	old, err := r.pods(ctx, op, id)
	if err != nil {
		return err
	}
	// Followed from now on, the old pods' logs end with their last lines,
	// which are kept once the pods are gone, as Stop keeps them.
	capture := r.follow(ctx, old)
	rollout := newRollout()
	next := r.deployment(b, b.runningReplicas(*before.Spec.Replicas), true, rollout)
	err = r.putObjects(ctx, op, id, want)
	if err == nil {
		r.settle(ctx, op, id)
		err = r.updateDeployment(ctx, op, id, func(d *appsv1.Deployment) { d.Spec = next.Spec })
	}
	if err == nil {
		crashpoint.Hit("kube-roll-begun")
		err = r.waitRolledOut(ctx, op, b, next)
	}
	if err != nil {
		capture.cancel()
		capture.wait()
		return r.rollBack(ctx, op, before, prior, rollout, err)
	}
	crashpoint.Hit("kube-roll-rolled-out")
	// Done: the record and the ConfigMap describe the new pods alone.
	if err := r.updateDeployment(ctx, op, id, func(d *appsv1.Deployment) { d.Labels, d.Annotations = next.Labels, next.Annotations }); err != nil {
		capture.cancel()
		return err
	}
	if err := put(ctx, r, op, id, "configmap", r.cs.CoreV1().ConfigMaps(r.opts.Namespace), r.configMap(b), nil); err != nil {
		capture.cancel()
		return err
	}
	if err := r.putSideObjects(ctx, op, b); err != nil {
		capture.cancel()
		return err
	}
	return r.keepLogs(op, id, b.name, capture.wait())
}

// settle waits, for a little longer than a ready pod takes to count as
// available, until every ready pod of the agent does: when a rollout
// begins the cluster takes away the old pods that are not available, as
// it takes away those that cannot run, though these serve.
func (r *Runtime) settle(ctx context.Context, op, id string) {
	ctx, cancel := context.WithTimeout(ctx, 2*podSettleSeconds*time.Second)
	defer cancel()
	_ = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		d, err := r.getDeployment(ctx, op, id)
		return err == nil && d.Status.ObservedGeneration >= d.Generation && d.Status.AvailableReplicas >= d.Status.ReadyReplicas, nil
	})
}

// newRollout names a rollout: when it began, and a random suffix.
func newRollout() string {
	suffix := make([]byte, 3)
	_, _ = rand.Read(suffix)
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(suffix)
}

// waitRolledOut waits until the Deployment, given next's spec, runs only
// pods of next's rollout, each available and its card answering, asked
// of the pod itself as soon as it is ready: before it is available, and
// so before an old pod is taken away for it. It fails as soon as the new
// pods cannot run, one serves an invalid card, or the cluster gives up on
// the rollout.
func (r *Runtime) waitRolledOut(ctx context.Context, op string, b blueprint, next *appsv1.Deployment) error {
	id, rollout, want := b.cfg.ID(), next.Spec.Template.Labels[labelRollout], *next.Spec.Replicas
	port, paths := b.cfg.Runtime.ListenPort(containerPort), cardPathsOf(next.Annotations)
	answered := map[string]bool{}
	waiting := errors.New("no new pod is ready yet")
	for {
		d, pods, err := r.deploymentAndPods(ctx, op, id)
		if err != nil {
			return err
		}
		fresh := podsOf(pods, rollout)
		if why := failing(fresh); why != nil {
			return agentruntime.Errorf(agentruntime.KindSpawnFailure, op, id, why, "the new pods cannot run")
		}
		if why := stalled(d); why != "" {
			return agentruntime.Errorf(agentruntime.KindSpawnFailure, op, id, nil, "the cluster gave up on the rollout: %s", why)
		}
		for _, p := range fresh {
			if answered[p.Name] || !podReady(p) {
				continue
			}
			check := agentruntime.CheckCardVia(ctx, r.proxy, r.podProxy(p.Name, port), paths)
			var invalid *card.ValidationError
			switch {
			case check.Healthy():
				answered[p.Name] = true
			case errors.As(check.Err, &invalid):
				return agentruntime.Errorf(agentruntime.KindSpawnFailure, op, id, check.Err,
					"new pod %s serves a card that is not a valid A2A 1.0 or 0.3 card, so clients could not use it; fix the card the agent serves", p.Name)
			default:
				waiting = fmt.Errorf("the card of new pod %s does not answer: %w", p.Name, check.Err)
			}
		}
		if b.workload.Autoscaling != nil {
			// The autoscaler may change the count while the pods roll.
			want = *d.Spec.Replicas
		}
		if rolledOut(d) && *d.Spec.Replicas == want && len(fresh) == int(want) && !slices.ContainsFunc(fresh, func(p corev1.Pod) bool { return !answered[p.Name] }) {
			return nil
		}
		select {
		case <-ctx.Done():
			return agentruntime.Errorf(agentruntime.KindBackend, op, id, ctx.Err(),
				"the rollout did not finish in time: %d of %d new pods available (%v)", d.Status.AvailableReplicas, want, waiting)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// podsOf is the pods of rollout that are not on their way out.
func podsOf(pods []corev1.Pod, rollout string) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.Labels[labelRollout] == rollout && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

func podReady(p corev1.Pod) bool {
	return slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
		return c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
	})
}

// rolledOut says whether the Deployment runs as many pods as it asks
// for, each of its current template and available, and no other.
func rolledOut(d *appsv1.Deployment) bool {
	want := *d.Spec.Replicas
	return rollingOut(d) == nil && d.Status.Replicas == want && d.Status.AvailableReplicas == want
}

// stalled says why the cluster marked the Deployment's current rollout
// as failed (it made no progress within progressDeadlineSeconds); empty
// while it has not.
func stalled(d *appsv1.Deployment) string {
	if d.Status.ObservedGeneration < d.Generation {
		return ""
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse {
			return c.Reason + ": " + c.Message
		}
	}
	return ""
}

// podProxy is the base URL of the API server's proxy to port of pod name.
func (r *Runtime) podProxy(name string, port int) string {
	u, err := url.JoinPath(r.rest.Host, r.rest.APIPath, "api/v1/namespaces", r.opts.Namespace,
		"pods", "http:"+name+":"+strconv.Itoa(port), "proxy")
	if err != nil {
		return ""
	}
	return u + "/"
}

// rollBack puts the template and number of the agent's pods back as they
// were before the rollout, and its other objects as prior holds them,
// after the rollout failed with cause. It returns the failure with the
// last lines the new pods logged and the events recorded of them, read
// before the pods go.
func (r *Runtime) rollBack(ctx context.Context, op string, before *appsv1.Deployment, prior agentObjects, rollout string, cause error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollBackTimeout)
	defer cancel()
	id := before.Labels[labelAgentID]
	var rerr *agentruntime.Error
	if !errors.As(cause, &rerr) {
		rerr = agentruntime.Wrap(agentruntime.KindBackend, op, id, cause)
	}
	failure := &agentruntime.RolloutError{Err: rerr}
	if pods, err := r.pods(ctx, op, id); err == nil {
		fresh := podsOf(pods, rollout)
		out := agentruntime.NewTailBuffer(agentruntime.LogBudget(rolloutLogLines))
		r.writePodLogs(ctx, out, fresh, rolloutLogLines)
		failure.Logs = out.Lines(rolloutLogLines)
		uids := make([]types.UID, len(fresh))
		for i, p := range fresh {
			uids[i] = p.UID
		}
		failure.Events, _ = r.eventsOf(ctx, op, id, uids, rolloutEvents)
	}
	template, err := r.servingTemplate(ctx, op, id, before)
	if err == nil {
		err = r.updateDeployment(ctx, op, id, func(d *appsv1.Deployment) {
			d.Spec.Template, d.Spec.Replicas = *template, before.Spec.Replicas
		})
	}
	if err == nil {
		err = r.putObjects(ctx, op, id, prior)
	}
	if err == nil {
		// The new pods gone, or on their way out (out of the Service, and
		// of what Get reports), and the Deployment back at its old pods.
		err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			d, pods, err := r.deploymentAndPods(ctx, op, id)
			return err == nil && len(podsOf(pods, rollout)) == 0 && rollingOut(d) == nil, nil
		})
	}
	if err != nil {
		failure.Err = agentruntime.Errorf(rerr.Kind, op, id, rerr,
			"putting the previous pods' spec back failed as well (%v); the previous pods serve on, beside new pods that do not, until an apply rolls the agent again",
			err)
	}
	return failure
}

// servingTemplate is the template of the pods the agent's record
// describes: that of before, the Deployment as the rollout found it, or,
// when a rollout cut short had left before with its own, that of the
// record's ReplicaSet.
func (r *Runtime) servingTemplate(ctx context.Context, op, id string, before *appsv1.Deployment) (*corev1.PodTemplateSpec, error) {
	recorded := before.Annotations[annotationRollout]
	if before.Spec.Template.Labels[labelRollout] == recorded {
		return &before.Spec.Template, nil
	}
	sel := &metav1.LabelSelector{MatchLabels: r.selector(id)}
	if recorded == "" {
		sel.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: labelRollout, Operator: metav1.LabelSelectorOpDoesNotExist}}
	} else {
		sel.MatchLabels[labelRollout] = recorded
	}
	sets, err := r.cs.AppsV1().ReplicaSets(r.opts.Namespace).List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(sel)})
	if err != nil {
		return nil, r.clusterError(op, id, err)
	}
	if len(sets.Items) == 0 {
		return nil, agentruntime.Errorf(agentruntime.KindBackend, op, id, nil,
			"no ReplicaSet of the agent's previous pods is left to take their template from")
	}
	// The one that serves: most pods available, else the newest.
	serving := slices.MaxFunc(sets.Items, func(a, b appsv1.ReplicaSet) int {
		if c := cmp.Compare(a.Status.AvailableReplicas, b.Status.AvailableReplicas); c != 0 {
			return c
		}
		ra, _ := strconv.Atoi(a.Annotations[revisionAnnotation])
		rb, _ := strconv.Atoi(b.Annotations[revisionAnnotation])
		return cmp.Compare(ra, rb)
	})
	t := serving.Spec.Template.DeepCopy()
	// The cluster's own label, which it sets again.
	delete(t.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return t, nil
}

// currentObjects are the agent's ConfigMap, Secret and Service, as b's
// objects would be made with what they hold now; nil where one is missing.
func (r *Runtime) currentObjects(ctx context.Context, op, id string, b blueprint) (agentObjects, error) {
	core, ns := r.cs.CoreV1(), r.opts.Namespace
	var out agentObjects
	cm, err := getOwned(ctx, r, op, id, "configmap", core.ConfigMaps(ns), b.name)
	if err != nil {
		return out, err
	}
	if cm != nil {
		out.configMap = &corev1.ConfigMap{ObjectMeta: r.meta(b), Data: cm.Data}
	}
	secret, err := getOwned(ctx, r, op, id, "secret", core.Secrets(ns), b.name)
	if err != nil {
		return out, err
	}
	if secret != nil {
		out.secret = &corev1.Secret{ObjectMeta: r.meta(b), Type: secret.Type, Data: secret.Data}
	}
	svc, err := getOwned(ctx, r, op, id, "service", core.Services(ns), b.name)
	if err != nil {
		return out, err
	}
	if svc != nil {
		out.service = &corev1.Service{ObjectMeta: r.meta(b), Spec: svc.Spec}
	}
	return out, nil
}
