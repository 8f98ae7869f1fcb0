package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestDeploymentDeletedByHand: an agent whose Deployment is deleted
// outside the adapter reads damaged, not gone, while its ConfigMap is
// left; provisioning it again brings it back, and it starts healthy.
func TestDeploymentDeletedByHand(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	spec := agentruntime.Spec{Config: agentConfig("Kube Deleted")}
	a, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	if err := rt.cs.AppsV1().Deployments(opts.Namespace).Delete(testContext(t), rt.objectName(a.ID), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Get(testContext(t), a.ID); !agentruntime.IsKind(err, agentruntime.KindDamaged) {
		t.Fatalf("Get of an agent whose deployment was deleted = %v, want damaged", err)
	}
	again, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatalf("Provision again: %v", err)
	}
	if again.Port != a.Port || again.Endpoint != a.Endpoint {
		t.Errorf("provisioned again at %s (port %d), want %s (port %d)", again.Endpoint, again.Port, a.Endpoint, a.Port)
	}
	if err := rt.Start(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if h, err := agentruntime.WaitHealthy(testContext(t), rt, a.ID); err != nil {
		t.Fatalf("WaitHealthy: %s: %v", h, err)
	}
	if err := rt.Deprovision(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Get(testContext(t), a.ID); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		t.Errorf("Get after Deprovision = %v, want not found", err)
	}
}

// TestConfigMapAheadOfDeployment: an agent whose ConfigMap holds another
// config than its Deployment records, as a provision cut between the two
// leaves it, reads damaged, naming the ConfigMap, and lists with no config,
// rather than passing the ConfigMap's config off as the one it runs, which a
// survey says; provisioning it again mends it.
func TestConfigMapAheadOfDeployment(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	ctx := testContext(t)
	a, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig("Kube Ahead")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	next := agentConfig("Kube Ahead", "# the next config")
	configMaps := rt.cs.CoreV1().ConfigMaps(opts.Namespace)
	cm, err := configMaps.Get(ctx, rt.objectName(a.ID), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data[configKey] = string(next)
	if _, err := configMaps.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Get(ctx, a.ID); !agentruntime.IsKind(err, agentruntime.KindDamaged) || !strings.Contains(err.Error(), "configmap "+opts.Namespace+"/"+cm.Name) {
		t.Fatalf("Get of an agent whose configmap is ahead of its deployment = %v, want damaged, naming the configmap", err)
	}
	listed, err := rt.List(ctx)
	if err != nil || len(listed) != 1 || len(listed[0].Config) != 0 {
		t.Fatalf("List = %+v, %v; want the agent, with no config", listed, err)
	}
	survey, err := rt.Survey(ctx)
	if err != nil || len(survey.Agents) != 1 || len(survey.Unreadable) != 1 || survey.Unreadable[0].ID != a.ID ||
		!strings.Contains(survey.Unreadable[0].Error(), "configmap "+opts.Namespace+"/"+cm.Name) {
		t.Fatalf("Survey = %+v, %v; want the agent, and it named unreadable for its configmap", survey, err)
	}
	if _, err := rt.Provision(ctx, agentruntime.Spec{Config: next}); err != nil {
		t.Fatal(err)
	}
	if got, err := rt.Get(ctx, a.ID); err != nil || string(got.Config) != string(next) {
		t.Fatalf("Get after provisioning again = config %q, %v; want %q", got.Config, err, next)
	}
}

// TestReplicas: an agent provisioned with two replicas runs two ready
// pods behind its Service, which its instance names, again after a stop;
// provisioned with three, then two, while it runs, it is scaled in place:
// Provision returns with that many pods ready, and the pods it had keep
// running. Provisioned with one, it comes to run one pod.
func TestReplicas(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	spec := agentruntime.Spec{Config: agentConfig("Kube Replicas"), Replicas: 2}
	a, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	if a.Replicas != 2 {
		t.Errorf("Provision = %d replicas, want 2", a.Replicas)
	}
	for round := range 2 {
		if err := rt.Start(testContext(t), a.ID); err != nil {
			t.Fatal(err)
		}
		waitPods(t, rt, a.ID, 2)
		if err := rt.Stop(testContext(t), a.ID); err != nil {
			t.Fatalf("round %d: Stop: %v", round, err)
		}
	}
	if err := rt.Start(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	waitPods(t, rt, a.ID, 2)
	running := func() []string {
		t.Helper()
		a, err := rt.Get(testContext(t), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(a.Instance, ",")
	}
	before := running()
	// Between two pods and more, the pods are the same and only their
	// count changes; one pod is spread and budgeted for no more, which
	// changes them (TestSpreadAndBudget).
	for _, n := range []int{3, 2} {
		spec.Replicas = n
		if _, err := rt.Provision(testContext(t), spec); err != nil {
			t.Fatal(err)
		}
		// No wait: Provision returns once the agent runs n pods.
		pods := running()
		kept := 0
		for _, p := range pods {
			if slices.Contains(before, p) {
				kept++
			}
		}
		if len(pods) != n || kept != min(n, len(before)) {
			t.Fatalf("scaled from pods %v to %d: pods %v, want %d of them kept", before, n, pods, min(n, len(before)))
		}
		before = pods
	}
	spec.Replicas = 1
	if _, err := rt.Provision(testContext(t), spec); err != nil {
		t.Fatal(err)
	}
	waitPods(t, rt, a.ID, 1)
}

// waitPods waits until the agent is healthy with want available pods,
// which its instance names and no other.
func waitPods(t *testing.T, rt *Runtime, id string, want int) {
	t.Helper()
	waitAgent(t, rt, id, 250*time.Millisecond, func(ctx context.Context, a agentruntime.Agent) (bool, string) {
		d, err := rt.cs.AppsV1().Deployments(rt.opts.Namespace).Get(ctx, rt.objectName(id), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		names := strings.Split(a.Instance, ",")
		return a.Health == agentruntime.HealthHealthy && int(d.Status.AvailableReplicas) == want && len(names) == want && a.Instance != "",
			fmt.Sprintf("health %s, %d available pods, instance %q; want healthy with %d", a.Health, d.Status.AvailableReplicas, a.Instance, want)
	})
}

// waitAgent reads the agent every interval until done says it is as the
// test wants, and returns it then; at the test's deadline it fails with
// what done said of the agent last.
func waitAgent(t *testing.T, rt *Runtime, id string, interval time.Duration, done func(context.Context, agentruntime.Agent) (bool, string)) agentruntime.Agent {
	t.Helper()
	ctx := testContext(t)
	for {
		a, err := rt.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		ok, seen := done(ctx, a)
		if ok {
			return a
		}
		select {
		case <-ctx.Done():
			t.Fatalf("agent %s: %s", id, seen)
		case <-time.After(interval):
		}
	}
}

// TestAgentThatCannotRun: pods the cluster keeps retrying, because the
// agent exits at start or its image is missing, read stopped at once with
// the reason, rather than unhealthy until a wait times out; a start makes
// fresh pods, and the events of the pods say what became of them.
func TestAgentThatCannotRun(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	t.Setenv("KUBE_TEST_EMPTY_TOKEN", "")
	missing := opts
	missing.BaseImage = "localhost/terraform-provider-a2a:missing"
	tests := []struct {
		name string
		opts Options
		spec agentruntime.Spec
		want string
		// event is the start of an event the cluster records of the pods.
		event string
		// logged is in what the agent wrote before it exited, which Logs
		// returns once the kubelet has restarted it.
		logged string
	}{
		{
			// An empty bearer token would turn authentication off, so the
			// host refuses it and exits.
			"exits", opts, agentruntime.Spec{
				Config:    agentConfig("Kube Exits", "[auth]\nbearer_token = \"${KUBE_TEST_EMPTY_TOKEN}\""),
				Allowlist: &agentruntime.EnvAllowlist{Name: "empty", Variables: []string{"KUBE_TEST_EMPTY_TOKEN"}},
			}, "exited with status", "Normal Started pod/", "KUBE_TEST_EMPTY_TOKEN",
		},
		{"missing image", missing, agentruntime.Spec{Config: agentConfig("Kube No Image")}, "ErrImageNeverPull", "Warning ErrImageNeverPull pod/", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newRuntime(t, tt.opts)
			a, err := rt.Provision(testContext(t), tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
			for round := range 2 {
				if err := rt.Start(testContext(t), a.ID); err != nil {
					t.Fatalf("round %d: Start: %v", round, err)
				}
				h, err := agentruntime.WaitHealthy(testContext(t), rt, a.ID)
				if !agentruntime.IsKind(err, agentruntime.KindSpawnFailure) || !strings.Contains(err.Error(), tt.want) || h != agentruntime.HealthStopped {
					t.Fatalf("round %d: WaitHealthy = %s, %v; want stopped, a failed start saying %q", round, h, err, tt.want)
				}
			}
			waitEvent(t, rt, a.ID, tt.event)
			if tt.logged != "" {
				// The pod's status keeps the crashed container's last
				// lines, which Logs falls back on once the container is gone.
				if crashed := waitRestarted(t, rt, a.ID); !strings.Contains(crashed.LastTerminationState.Terminated.Message, tt.logged) {
					t.Errorf("the restarted container's termination message = %q; want the crashed container's line naming %s",
						crashed.LastTerminationState.Terminated.Message, tt.logged)
				}
				if lines, err := rt.Logs(testContext(t), a.ID, 20); err != nil || !strings.Contains(strings.Join(lines, "\n"), tt.logged) {
					t.Errorf("Logs after a restart = %q, %v; want the crashed container's line naming %s", lines, err, tt.logged)
				}
			}
			if err := rt.Stop(testContext(t), a.ID); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// waitEvent waits until one of the agent's events starts with prefix: the
// cluster records them a moment after what they tell.
func waitEvent(t *testing.T, rt *Runtime, id, prefix string) {
	t.Helper()
	ctx := testContext(t)
	for {
		events, err := rt.Events(ctx, id, 0)
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		if slices.ContainsFunc(events, func(e string) bool { return strings.HasPrefix(e, prefix) }) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no event of agent %s starts with %q; its events: %q", id, prefix, events)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// waitRestarted waits until the kubelet has restarted a container of the
// agent's pods, and returns the status of the restarted container.
func waitRestarted(t *testing.T, rt *Runtime, id string) corev1.ContainerStatus {
	t.Helper()
	var status corev1.ContainerStatus
	err := wait.PollUntilContextTimeout(testContext(t), 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, _ := rt.pods(ctx, "test", id)
		for _, p := range pods {
			if s := agentStatus(p); s.RestartCount > 0 && s.LastTerminationState.Terminated != nil {
				status = s
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no container of agent %s was restarted: %v", id, err)
	}
	return status
}
