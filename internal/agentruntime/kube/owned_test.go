package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// foreignObjects creates, under name, a ConfigMap, a Secret and a Service
// that no agent owns, and returns a check that each is still there, as it
// was.
func foreignObjects(t *testing.T, rt *Runtime, name string) func(when string) {
	t.Helper()
	ctx, core, ns := testContext(t), rt.cs.CoreV1(), rt.opts.Namespace
	meta := metav1.ObjectMeta{Name: name, Labels: map[string]string{"owner": "someone-else"}}
	cm, err := core.ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "theirs"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := core.Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: meta, Data: map[string][]byte{"k": []byte("theirs")}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := core.Services(ns).Create(ctx, &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"owner": "someone-else"}, Ports: []corev1.ServicePort{{Port: 80}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]types.UID{"configmap": cm.UID, "secret": secret.UID, "service": svc.UID}
	return func(when string) {
		t.Helper()
		ctx := testContext(t)
		got := map[string]metav1.Object{}
		var errs []error
		for kind, get := range map[string]func() (metav1.Object, error){
			"configmap": func() (metav1.Object, error) { return core.ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{}) },
			"secret":    func() (metav1.Object, error) { return core.Secrets(ns).Get(ctx, name, metav1.GetOptions{}) },
			"service":   func() (metav1.Object, error) { return core.Services(ns).Get(ctx, name, metav1.GetOptions{}) },
		} {
			o, err := get()
			if err != nil {
				errs = append(errs, err)
				continue
			}
			got[kind] = o
		}
		for kind, uid := range want {
			if o, ok := got[kind]; !ok || o.GetUID() != uid || o.GetDeletionTimestamp() != nil || o.GetLabels()["owner"] != "someone-else" {
				t.Errorf("%s: the foreign %s %s/%s is gone or changed (%v)", when, kind, ns, name, errs)
			}
		}
	}
}

// TestForeignObjectsSurvive puts a ConfigMap, a Secret and a Service that
// are not an agent's under its name: provisioning the agent is refused
// with nothing made, and deprovisioning it deletes none of them. Neither
// does the deprovision of an agent whose Deployment was deleted by hand
// and whose Secret someone replaced with their own.
func TestForeignObjectsSurvive(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	ctx := testContext(t)
	spec := agentruntime.Spec{Config: agentConfig("Kube Foreign")}
	id := "kube-foreign"
	unchanged := foreignObjects(t, rt, rt.objectName(id))
	_, err := rt.Provision(ctx, spec)
	if !agentruntime.IsKind(err, agentruntime.KindConflict) || !strings.Contains(err.Error(), rt.objectName(id)) {
		t.Errorf("Provision under a foreign ConfigMap, Secret and Service = %v, want a conflict naming them", err)
	}
	if _, err := rt.cs.AppsV1().Deployments(opts.Namespace).Get(ctx, rt.objectName(id), metav1.GetOptions{}); err == nil {
		t.Error("the refused Provision made the agent's Deployment")
	}
	unchanged("after the refused provision")
	if err := rt.Deprovision(ctx, id); err != nil {
		t.Fatal(err)
	}
	unchanged("after deprovisioning the agent that never was")

	// An agent made, then its Deployment deleted and its Secret swapped by hand.
	spec = agentruntime.Spec{Config: agentConfig("Kube Swapped")}
	a, err := rt.Provision(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	name := rt.objectName(a.ID)
	apps, core := rt.cs.AppsV1(), rt.cs.CoreV1()
	if err := apps.Deployments(opts.Namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := core.Secrets(opts.Namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	theirs, err := core.Secrets(opts.Namespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name},
		Data: map[string][]byte{"k": []byte("theirs")}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Deprovision(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if s, err := core.Secrets(opts.Namespace).Get(ctx, name, metav1.GetOptions{}); err != nil || s.UID != theirs.UID {
		t.Errorf("the Secret put in place of the agent's: %v, want it left as it was", err)
	}
	wantNoObjects(t, rt, a.ID)
}

// wantNoObjects fails the test when any object labelled as agent id's is
// left.
func wantNoObjects(t *testing.T, rt *Runtime, id string) {
	t.Helper()
	ctx, ns := testContext(t), rt.opts.Namespace
	sel := metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: rt.selector(id)})}
	var left []string
	deps, err := rt.cs.AppsV1().Deployments(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range deps.Items {
		left = append(left, "deployment "+o.Name)
	}
	svcs, err := rt.cs.CoreV1().Services(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range svcs.Items {
		left = append(left, "service "+o.Name)
	}
	secrets, err := rt.cs.CoreV1().Secrets(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range secrets.Items {
		left = append(left, "secret "+o.Name)
	}
	cms, err := rt.cs.CoreV1().ConfigMaps(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range cms.Items {
		left = append(left, "configmap "+o.Name)
	}
	if len(left) > 0 {
		t.Errorf("agent %s of scope %s is deprovisioned, but its %v are left", id, rt.opts.Scope, left)
	}
}
