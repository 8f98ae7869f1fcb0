package kube

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/steady"
)

// unitRuntime is a runtime with opts' defaults and no cluster, for what
// needs none.
func unitRuntime(t *testing.T, opts Options) *Runtime {
	t.Helper()
	opts.BaseImage = "a2a:test"
	o, err := opts.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return &Runtime{opts: o}
}

func unitBlueprint(t *testing.T, r *Runtime, name string) blueprint {
	t.Helper()
	cfg, err := agentconfig.Parse(agentConfig(name))
	if err != nil {
		t.Fatal(err)
	}
	return blueprint{name: r.objectName(cfg.ID()), cfg: cfg, port: 8080, replicas: 2}
}

// TestRolloutObjects: an agent's Deployment replaces pods one at a time,
// none taken away before its replacement has been ready a while, and has
// each old pod wait, within its grace period, for the Service to drop it;
// its pods read the config from a key of their own, and name the rollout
// that made them as its record does; the Service reaches each pod's port
// by name.
func TestRolloutObjects(t *testing.T) {
	for _, tt := range []struct {
		grace time.Duration
		drain bool
	}{{DefaultStopGracePeriod, true}, {3 * time.Second, true}, {2 * time.Second, false}} {
		r := unitRuntime(t, Options{StopGracePeriod: tt.grace})
		b := unitBlueprint(t, r, "Kube Rollout Objects")
		d := r.deployment(b, 2, true, "20260102-030405-abcdef")
		s := d.Spec
		c := s.Template.Spec.Containers[0]
		checks := map[string]bool{
			"max unavailable 0, max surge 1": s.Strategy.RollingUpdate != nil && s.Strategy.RollingUpdate.MaxUnavailable.IntValue() == 0 &&
				s.Strategy.RollingUpdate.MaxSurge.IntValue() == 1,
			"a pod settles before it counts":      s.MinReadySeconds == podSettleSeconds,
			"a progress deadline":                 s.ProgressDeadlineSeconds != nil && *s.ProgressDeadlineSeconds == progressDeadlineSeconds,
			"the config under its own key":        c.Env[0].ValueFrom.ConfigMapKeyRef.Key == podConfigKey(b.cfg),
			"pods and record name the rollout":    s.Template.Labels[labelRollout] == "20260102-030405-abcdef" && d.Annotations[annotationRollout] == "20260102-030405-abcdef",
			"a drain only below the grace period": tt.drain == (c.Lifecycle != nil && c.Lifecycle.PreStop.Sleep.Seconds == drainSeconds),
		}
		for what, ok := range checks {
			if !ok {
				t.Errorf("grace period %s: the Deployment lacks: %s", tt.grace, what)
			}
		}
		if first := r.deployment(b, 0, false, ""); first.Spec.Template.Labels[labelRollout] != "" || first.Annotations[annotationRollout] != "" {
			t.Errorf("a Deployment made by no rollout names one: %v %v", first.Spec.Template.Labels, first.Annotations)
		}
		cm := r.configMap(b).Data
		if raw := string(b.cfg.Raw()); len(cm) != 2 || cm[configKey] != raw || cm[podConfigKey(b.cfg)] != raw {
			t.Errorf("the ConfigMap holds %v, want the config as the one that serves and under the pods' key", cm)
		}
		if target := r.service(b).Spec.Ports[0].TargetPort; target.StrVal != c.Ports[0].Name {
			t.Errorf("the Service targets port %v, want the pods' port by its name %q", target, c.Ports[0].Name)
		}
	}
}

// TestRolloutProgress: a rollout is done once the Deployment has seen its
// spec and runs as many pods as asked, each of it and available, and no
// other; it has failed once the cluster says it made no progress, on the
// spec it has seen.
func TestRolloutProgress(t *testing.T) {
	failed := []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: "no progress"}}
	tests := []struct {
		name                                               string
		generation, observed, replicas, updated, available int32
		conditions                                         []appsv1.DeploymentCondition
		done                                               bool
		stalled                                            string
	}{
		{"done", 2, 2, 2, 2, 2, nil, true, ""},
		{"spec not seen yet", 3, 2, 2, 2, 2, failed, false, ""},
		{"an old pod left", 2, 2, 3, 2, 2, nil, false, ""},
		{"a new pod not available yet", 2, 2, 2, 2, 1, nil, false, ""},
		{"an old pod not replaced yet", 2, 2, 2, 1, 2, nil, false, ""},
		{"no progress", 2, 2, 3, 1, 2, failed, false, "ProgressDeadlineExceeded: no progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: int64(tt.generation)}, Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(2))}, Status: appsv1.DeploymentStatus{
				ObservedGeneration: int64(tt.observed), Replicas: tt.replicas, UpdatedReplicas: tt.updated, AvailableReplicas: tt.available,
				Conditions: tt.conditions,
			}}
			if got := rolledOut(d); got != tt.done {
				t.Errorf("rolledOut = %v, want %v", got, tt.done)
			}
			if got := stalled(d); got != tt.stalled {
				t.Errorf("stalled = %q, want %q", got, tt.stalled)
			}
		})
	}
}

// TestUnfinishedRolloutReadsUnhealthy: a running agent whose pods' template
// names another rollout than its record (a roll cut short) reads
// unhealthy, saying so, whatever its pods serve, so that a plan rolls it
// again; it reads its record's config all the same.
func TestUnfinishedRolloutReadsUnhealthy(t *testing.T) {
	r := unitRuntime(t, Options{})
	b := unitBlueprint(t, r, "Kube Unfinished")
	d := r.deployment(b, 2, true, "before")
	d.Spec.Template.Labels[labelRollout] = "cut-short"
	d.Status.ReadyReplicas = 2
	// No cluster answers: a probe would fail the card, not name the rollout.
	a := r.agent(context.Background(), d, r.configMap(b), nil, sideObjects{})
	if !a.Running || a.Health != agentruntime.HealthUnhealthy || a.CardError == nil || !strings.Contains(a.CardError.Error(), "record describes") ||
		string(a.Config) != string(b.cfg.Raw()) {
		t.Errorf("agent of an unfinished rollout = running %v, %s (%v), config %q; want running, unhealthy saying why, its record's config",
			a.Running, a.Health, a.CardError, a.Config)
	}
}

// runningAgent provisions spec, starts it and waits until its pods are
// available; it deprovisions the agent when the test ends.
func runningAgent(t *testing.T, rt *Runtime, spec agentruntime.Spec) agentruntime.Agent {
	t.Helper()
	a, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(context.Background(), a.ID) })
	if err := rt.Start(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	waitPods(t, rt, a.ID, max(spec.Replicas, 1))
	a, err = rt.Get(testContext(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// serviceFlow starts a steady flow of echo calls to the agent through the
// API server's proxy to its Service, which picks a pod for each call.
func serviceFlow(t *testing.T, rt *Runtime, a agentruntime.Agent) *steady.Flow {
	t.Helper()
	hc := *rt.proxy
	hc.Timeout = 10 * time.Second
	client, err := steady.Client(testContext(t), rt.serviceProxy(rt.objectName(a.ID), a.Port), &hc)
	if err != nil {
		t.Fatal(err)
	}
	if err := steady.Echo(client)(testContext(t), -1); err != nil {
		t.Fatalf("the agent does not echo through its Service: %v", err)
	}
	return steady.Start(50*time.Millisecond, steady.Echo(client))
}

// TestRollWithoutDowntime: an agent of two pods under a steady flow of
// calls through its Service answers every call while a roll replaces its
// pods with ones of a new config; restarted in place instead (provision,
// stop, start), as the provider did before it rolled agents, it does not,
// which the test reports.
func TestRollWithoutDowntime(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newNamespace(t)))
	spec := agentruntime.Spec{Config: agentConfig("Kube Roll Steady"), Replicas: 2}
	a := runningAgent(t, rt, spec)
	flow := serviceFlow(t, rt, a)
	spec.Config = append(spec.Config, "# restarted in place\n"...)
	if _, err := rt.Provision(testContext(t), spec); err != nil {
		t.Fatal(err)
	}
	if err := rt.Stop(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if h, err := agentruntime.WaitHealthy(testContext(t), rt, a.ID); err != nil {
		t.Fatalf("WaitHealthy after the restart: %s, %v", h, err)
	}
	t.Logf("restarted in place, replicas = 2: %v", flow.Stop())
	waitPods(t, rt, a.ID, 2)

	before, err := rt.Get(testContext(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	flow = serviceFlow(t, rt, a)
	spec.Config = append(spec.Config, "# rolled\n"...)
	began := time.Now()
	rolled, err := rt.Roll(testContext(t), spec)
	took := time.Since(began)
	got := flow.Stop()
	if err != nil {
		t.Fatalf("Roll: %v", err)
	}
	t.Logf("rolled in %s, replicas = 2: %v", took.Round(time.Millisecond), got)
	if got.Failed > 0 || got.Calls < 20 {
		t.Errorf("during the roll %v; want none of at least 20 failed", got)
	}
	kept := slices.ContainsFunc(strings.Split(rolled.Instance, ","), func(p string) bool { return strings.Contains(before.Instance, p) })
	if rolled.Health != agentruntime.HealthHealthy || len(strings.Split(rolled.Instance, ",")) != 2 || kept {
		t.Errorf("rolled from pods %q to %+v; want two new pods, healthy", before.Instance, rolled)
	}
}

// TestRollMissingImage: a roll to an image the cluster does not have fails
// with the events of the new pod, and the pods of before serve on.
func TestRollMissingImage(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newNamespace(t)))
	name := "Kube Roll Image"
	before := runningAgent(t, rt, agentruntime.Spec{Config: agentConfig(name)})
	missing := broughtConfig(name, "localhost/terraform-provider-a2a:missing", []string{"--echo", "--transport", "jsonrpc"}, []byte(`{}`))
	_, err := rt.Roll(testContext(t), agentruntime.Spec{Config: missing})
	var failure *agentruntime.RolloutError
	if !errors.As(err, &failure) || !strings.Contains(err.Error(), "ErrImageNeverPull") ||
		!slices.ContainsFunc(failure.Events, func(e string) bool { return strings.HasPrefix(e, "Warning ErrImageNeverPull pod/") }) {
		t.Fatalf("Roll to a missing image = %v (events %q), want a RolloutError naming ErrImageNeverPull, with its event", err, failure.Events)
	}
	wantAsBefore(t, rt, before)
}

// wantAsBefore fails the test unless the agent runs the pods it ran, as
// healthy, with the config it had.
func wantAsBefore(t *testing.T, rt *Runtime, before agentruntime.Agent) {
	t.Helper()
	waitPods(t, rt, before.ID, len(strings.Split(before.Instance, ",")))
	after, err := rt.Get(testContext(t), before.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Instance != before.Instance || after.ConfigSHA256 != before.ConfigSHA256 || string(after.Config) != string(before.Config) {
		t.Errorf("after the failed roll the agent runs %q with config %s, want %q with %s", after.Instance, after.ConfigSHA256, before.Instance, before.ConfigSHA256)
	}
}

// TestInterruptedRoll: a roll cut short (its process killed) leaves new
// pods that cannot run beside the old ones, which serve on; the agent
// reads unhealthy, with the config of its record. A roll that fails then
// takes the pods back to the old ones' template, which the record's
// ReplicaSet holds; one that succeeds leaves new pods, and the agent
// healthy.
func TestInterruptedRoll(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newNamespace(t)))
	t.Setenv("KUBE_TEST_EMPTY_TOKEN", "")
	spec := agentruntime.Spec{Config: agentConfig("Kube Roll Cut Short")}
	before := runningAgent(t, rt, spec)
	broken := agentruntime.Spec{Config: agentConfig("Kube Roll Cut Short", "[auth]\nbearer_token = \"${KUBE_TEST_EMPTY_TOKEN}\""),
		Allowlist: &agentruntime.EnvAllowlist{Name: "empty", Variables: []string{"KUBE_TEST_EMPTY_TOKEN"}}}
	for _, next := range []agentruntime.Spec{broken, spec} {
		cutShort(t, rt, before.ID)
		got, err := rt.Get(testContext(t), before.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Health != agentruntime.HealthUnhealthy || got.CardError == nil || !strings.Contains(got.CardError.Error(), "record describes") ||
			got.ConfigSHA256 != before.ConfigSHA256 || string(got.Config) != string(before.Config) {
			t.Fatalf("an agent whose roll was cut short reads %s (%v), config %s; want unhealthy saying why, config %s",
				got.Health, got.CardError, got.ConfigSHA256, before.ConfigSHA256)
		}
		rolled, err := rt.Roll(testContext(t), next)
		if next.Allowlist != nil {
			var failure *agentruntime.RolloutError
			if !errors.As(err, &failure) {
				t.Fatalf("Roll to pods that exit = %v, want a RolloutError", err)
			}
			wantAsBefore(t, rt, before)
			if got, err := rt.Get(testContext(t), before.ID); err != nil || got.Health != agentruntime.HealthHealthy {
				t.Fatalf("after the failed roll the agent reads %s, %v; want the old pods healthy again", got.Health, err)
			}
			continue
		}
		if err != nil || rolled.Health != agentruntime.HealthHealthy || rolled.Instance == before.Instance {
			t.Fatalf("Roll after a roll cut short = %+v, %v; want new pods, healthy", rolled, err)
		}
	}
}

// cutShort leaves the agent's Deployment as a roll killed while it waited
// would: its pods' template names a new rollout, whose pods cannot run
// (their image is missing), and its record the old one.
func cutShort(t *testing.T, rt *Runtime, id string) {
	t.Helper()
	err := rt.updateDeployment(testContext(t), "test", id, func(d *appsv1.Deployment) {
		d.Spec.Template.Labels[labelRollout] = "cut-short"
		d.Spec.Template.Spec.Containers[0].Image = "localhost/terraform-provider-a2a:missing"
	})
	if err != nil {
		t.Fatal(err)
	}
}
