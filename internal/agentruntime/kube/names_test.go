package kube

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// provisionOldNamed makes the objects of the agent of spec as the adapter
// made them before names told scopes apart: what it makes now, under the
// old name.
func provisionOldNamed(t *testing.T, rt *Runtime, spec agentruntime.Spec) agentruntime.Agent {
	t.Helper()
	ctx, ns := testContext(t), rt.opts.Namespace
	p, err := prepare(spec)
	if err != nil {
		t.Fatal(err)
	}
	id := p.Config.ID()
	b := blueprint{name: rt.oldObjectName(id), cfg: p.Config, injected: p.InjectedEnv, writeOnly: spec.WriteOnly.Names(), replicas: int32(cmp.Or(spec.Replicas, 1))}
	if b.name == rt.objectName(id) {
		t.Fatalf("agent %s of scope %s has the same name under both schemes, so this test shows nothing", id, rt.opts.Scope)
	}
	if b.port, err = rt.portFor(ctx, "test", b, nil, p); err != nil {
		t.Fatal(err)
	}
	data, err := secretData(b, spec.WriteOnly)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.cs.AppsV1().Deployments(ns).Create(ctx, rt.deployment(b, 0, false, ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	core := rt.cs.CoreV1()
	if _, err := core.ConfigMaps(ns).Create(ctx, rt.configMap(b), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := core.Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: rt.meta(b), Type: corev1.SecretTypeOpaque, Data: data}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := core.Services(ns).Create(ctx, rt.service(b), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a, err := rt.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// startHealthy starts the agent and waits until its card answers.
func startHealthy(t *testing.T, rt *Runtime, id string) {
	t.Helper()
	if err := rt.Start(testContext(t), id); err != nil {
		t.Fatal(err)
	}
	if h, err := agentruntime.WaitHealthy(testContext(t), rt, id); err != nil {
		t.Fatalf("WaitHealthy(%s): %s: %v", id, h, err)
	}
}

// TestCollidingNamesCoexist runs two agents whose objects had one name
// under the old names (scope s with id "a-b", scope s-a with id "b"), the
// first of them made under it, as an agent created then was: each is its
// own agent, served by its own Service, and removing one leaves the other
// running.
func TestCollidingNamesCoexist(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	first := newRuntime(t, opts)
	opts.Scope += "-a"
	second := newRuntime(t, opts)
	if first.oldObjectName("a-b") != second.oldObjectName("b") {
		t.Fatalf("old names %q and %q do not collide, so this test shows nothing", first.oldObjectName("a-b"), second.oldObjectName("b"))
	}
	a := provisionOldNamed(t, first, agentruntime.Spec{Config: agentConfig("A B")})
	t.Cleanup(func() { _ = first.Deprovision(testContext(t), a.ID) })
	b, err := second.Provision(testContext(t), agentruntime.Spec{Config: agentConfig("B")})
	if err != nil {
		t.Fatalf("Provision of the agent whose old name the other has: %v", err)
	}
	t.Cleanup(func() { _ = second.Deprovision(testContext(t), b.ID) })
	if a.Endpoint == b.Endpoint {
		t.Errorf("both agents are at %s", a.Endpoint)
	}
	startHealthy(t, first, a.ID)
	startHealthy(t, second, b.ID)
	for _, c := range []struct {
		rt   *Runtime
		a    agentruntime.Agent
		name string
	}{{first, a, "A B"}, {second, b, "B"}} {
		got, err := c.rt.Get(testContext(t), c.a.ID)
		if err != nil || got.Card == nil || got.Card.Card.Name != c.name {
			t.Errorf("Get(%s) in scope %s = %+v, %v; want its own card, of %q", c.a.ID, c.rt.opts.Scope, got, err, c.name)
		}
	}
	if err := second.Deprovision(testContext(t), b.ID); err != nil {
		t.Fatal(err)
	}
	wantNoObjects(t, second, b.ID)
	if got, err := first.Get(testContext(t), a.ID); err != nil || got.Health != agentruntime.HealthHealthy {
		t.Errorf("after the other agent went, Get(%s) = %+v, %v; want it healthy", a.ID, got, err)
	}
	if err := first.Deprovision(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	wantNoObjects(t, first, a.ID)
}

// TestOldNamedAgentIsManaged: an agent whose objects have the old name is
// adopted and planned where it is, and started, updated, stopped, damaged,
// made again and destroyed under that name, keeping its address.
func TestOldNamedAgentIsManaged(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	spec := agentruntime.Spec{Config: agentConfig("Kube Old Named", "[server]\nhttp_port = 8123"),
		WriteOnly: agentruntime.WriteOnlyValues{"KUBE_OLD_WRITTEN": "old-written"}}
	spec.Config = append(spec.Config, "# ${KUBE_OLD_WRITTEN}\n"...)
	a := provisionOldNamed(t, newRuntime(t, opts), spec)
	old := newRuntime(t, opts).oldObjectName(a.ID)
	if !strings.Contains(a.Endpoint, old+".") {
		t.Fatalf("the old agent is at %s, want its Service %s there", a.Endpoint, old)
	}

	rt := newRuntime(t, opts)
	t.Cleanup(func() { _ = rt.Deprovision(testContext(t), a.ID) })
	ctx := testContext(t)
	rec, err := rt.Recover(ctx)
	if err != nil || !slices.Contains(rec.IDs, a.ID) {
		t.Errorf("Recover = %+v, %v; want it to adopt %s", rec, err, a.ID)
	}
	cfg, err := prepare(spec)
	if err != nil {
		t.Fatal(err)
	}
	if planned, ok := rt.PlannedAddress(cfg.Config); !ok || planned.Endpoint != a.Endpoint {
		t.Errorf("PlannedAddress = %+v, %v; want the address it has, %s", planned, ok, a.Endpoint)
	}
	startHealthy(t, rt, a.ID)
	if list, err := rt.List(ctx); err != nil || len(list) != 1 || list[0].Health != agentruntime.HealthHealthy {
		t.Errorf("List = %+v, %v; want the agent, healthy", list, err)
	}

	spec.Config = append(spec.Config, "# updated\n"...)
	updated, err := rt.Provision(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if updated.Endpoint != a.Endpoint || updated.ConfigSHA256 == a.ConfigSHA256 {
		t.Errorf("updated, the agent is at %s with config %s; want it at %s with a new config", updated.Endpoint, updated.ConfigSHA256, a.Endpoint)
	}
	if err := rt.Stop(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	startHealthy(t, rt, a.ID)
	if logs, err := rt.Logs(ctx, a.ID, 0); err != nil || len(logs) == 0 {
		t.Errorf("Logs = %q, %v; want the kept and current logs", logs, err)
	}

	// Its Deployment deleted by hand, it is made again where it was.
	if err := rt.cs.AppsV1().Deployments(opts.Namespace).Delete(ctx, old, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Get(ctx, a.ID); !agentruntime.IsKind(err, agentruntime.KindDamaged) {
		t.Errorf("Get of the agent without its Deployment = %v, want damaged", err)
	}
	again, err := newRuntime(t, opts).Provision(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if again.Endpoint != a.Endpoint || again.Port != a.Port {
		t.Errorf("made again at %s (port %d), want %s (port %d)", again.Endpoint, again.Port, a.Endpoint, a.Port)
	}
	startHealthy(t, rt, a.ID)

	if err := rt.Deprovision(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Get(ctx, a.ID); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		t.Errorf("Get after Deprovision = %v, want not found", err)
	}
	wantNoObjects(t, rt, a.ID)
	if _, err := rt.opts.StateDir.ReadFile(rt.logFile(old)); err == nil {
		t.Error("the agent's kept logs outlived it")
	}
}
