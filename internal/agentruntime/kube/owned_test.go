package kube

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

// foreignKind makes, reads and deletes one kind of object an agent has, as
// someone else would under the agent's name.
type foreignKind struct {
	create func(ctx context.Context, meta metav1.ObjectMeta) (metav1.Object, error)
	get    func(ctx context.Context, name string) (metav1.Object, error)
	delete func(ctx context.Context, name string) error
}

// kindAPI is the part of a typed client-go client that foreignKind needs.
type kindAPI[T metav1.Object] interface {
	objectAPI[T]
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

func foreignKindOf[T metav1.Object](api kindAPI[T], build func(metav1.ObjectMeta) T) foreignKind {
	return foreignKind{
		create: func(ctx context.Context, meta metav1.ObjectMeta) (metav1.Object, error) {
			return api.Create(ctx, build(meta), metav1.CreateOptions{})
		},
		get: func(ctx context.Context, name string) (metav1.Object, error) {
			return api.Get(ctx, name, metav1.GetOptions{})
		},
		delete: func(ctx context.Context, name string) error { return api.Delete(ctx, name, metav1.DeleteOptions{}) },
	}
}

// foreignKinds are the kinds of an agent's objects, by the name the
// adapter's errors give them. The Deployment runs an agent host of its
// own, from the image the agents run from.
func foreignKinds(rt *Runtime) map[string]foreignKind {
	apps, core, ns := rt.cs.AppsV1(), rt.cs.CoreV1(), rt.opts.Namespace
	theirs := map[string]string{"owner": "someone-else"}
	return map[string]foreignKind{
		"deployment": foreignKindOf(apps.Deployments(ns), func(meta metav1.ObjectMeta) *appsv1.Deployment {
			return &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{
				Replicas: ptr(int32(1)),
				Selector: &metav1.LabelSelector{MatchLabels: theirs},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: theirs}, Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name: "theirs", Image: rt.opts.BaseImage, ImagePullPolicy: corev1.PullNever,
						Args: []string{"--config-env", launch.ConfigEnvVar, "--host", "0.0.0.0", "--port", "8080"},
						Env:  []corev1.EnvVar{{Name: launch.ConfigEnvVar, Value: string(agentConfig("Someone Else"))}},
					}},
				}},
			}}
		}),
		"configmap": foreignKindOf(core.ConfigMaps(ns), func(meta metav1.ObjectMeta) *corev1.ConfigMap {
			return &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "theirs"}}
		}),
		"secret": foreignKindOf(core.Secrets(ns), func(meta metav1.ObjectMeta) *corev1.Secret {
			return &corev1.Secret{ObjectMeta: meta, Data: map[string][]byte{"k": []byte("theirs")}}
		}),
		"service": foreignKindOf(core.Services(ns), func(meta metav1.ObjectMeta) *corev1.Service {
			return &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Selector: theirs, Ports: []corev1.ServicePort{{Port: 80}}}}
		}),
	}
}

// foreignObjects creates, under name, an object of each of kinds that no
// agent owns, labelled as someone else's and with none of the adapter's
// labels, and returns a check that each is still there as it was: the
// same object, not being deleted, its labels and its spec (its
// generation) untouched.
func foreignObjects(t *testing.T, rt *Runtime, name string, kinds ...string) func(when string) {
	t.Helper()
	ctx, all := testContext(t), foreignKinds(rt)
	made := map[string]metav1.Object{}
	for _, kind := range kinds {
		o, err := all[kind].create(ctx, metav1.ObjectMeta{Name: name, Labels: map[string]string{"owner": "someone-else"}})
		if err != nil {
			t.Fatalf("create the foreign %s %s: %v", kind, name, err)
		}
		made[kind] = o
	}
	return func(when string) {
		t.Helper()
		ctx := testContext(t)
		for kind, was := range made {
			o, err := all[kind].get(ctx, name)
			switch {
			case err != nil:
				t.Errorf("%s: the foreign %s %s/%s: %v", when, kind, rt.opts.Namespace, name, err)
			case o.GetUID() != was.GetUID() || o.GetDeletionTimestamp() != nil:
				t.Errorf("%s: the foreign %s %s/%s was deleted or replaced", when, kind, rt.opts.Namespace, name)
			case !maps.Equal(o.GetLabels(), was.GetLabels()) || o.GetGeneration() != was.GetGeneration():
				t.Errorf("%s: the foreign %s %s/%s was changed: labels %v, generation %d (were %v, %d)",
					when, kind, rt.opts.Namespace, name, o.GetLabels(), o.GetGeneration(), was.GetLabels(), was.GetGeneration())
			}
		}
	}
}

// TestForeignObjectsSurvive puts objects that are not an agent's under its
// name: provisioning the agent is refused with an error naming the first of
// them, with nothing made or changed, and so are starting and stopping it
// when one is a Deployment; deprovisioning it deletes none of them. An
// agent whose Deployment and Secret were deleted by hand and someone
// else's put in their place is treated the same, and its deprovision
// deletes the ConfigMap and Service that are still its own.
func TestForeignObjectsSurvive(t *testing.T) {
	opts := testOptions(t, newNamespace(t))
	rt := newRuntime(t, opts)
	for _, tc := range []struct {
		name string
		// made: the agent is provisioned before its objects of kinds are
		// deleted and foreign ones of those kinds put in their place.
		made  bool
		kinds []string
		// refusedBy is the kind of the object Provision's refusal names.
		refusedBy string
	}{
		{name: "Kube Foreign", kinds: []string{"deployment", "configmap", "secret", "service"}, refusedBy: "deployment"},
		{name: "Kube Foreign Undeployed", kinds: []string{"configmap", "secret", "service"}, refusedBy: "configmap"},
		{name: "Kube Swapped", made: true, kinds: []string{"deployment", "secret"}, refusedBy: "deployment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			spec := agentruntime.Spec{Config: agentConfig(tc.name)}
			p, err := prepare(spec)
			if err != nil {
				t.Fatal(err)
			}
			id := p.Config.ID()
			name := rt.objectName(id)
			if tc.made {
				if _, err := rt.Provision(ctx, spec); err != nil {
					t.Fatal(err)
				}
				for _, kind := range tc.kinds {
					if err := foreignKinds(rt)[kind].delete(ctx, name); err != nil {
						t.Fatalf("delete the agent's %s by hand: %v", kind, err)
					}
				}
			}
			unchanged := foreignObjects(t, rt, name, tc.kinds...)
			_, err = rt.Provision(ctx, spec)
			wantForeignRefused(t, "Provision", tc.refusedBy, opts.Namespace+"/"+name, err)
			for _, step := range []struct {
				op string
				do func(context.Context, string) error
			}{{"Start", rt.Start}, {"Stop", rt.Stop}} {
				err := step.do(ctx, id)
				if slices.Contains(tc.kinds, "deployment") {
					wantForeignRefused(t, step.op, "deployment", opts.Namespace+"/"+name, err)
				} else if !agentruntime.IsKind(err, agentruntime.KindNotFound) {
					t.Errorf("%s of the agent that has no deployment = %v, want not found", step.op, err)
				}
			}
			unchanged("after the refused provision, start and stop")
			if !tc.made {
				wantNoObjects(t, rt, id) // the refusals made nothing
			}
			if err := rt.Deprovision(ctx, id); err != nil {
				t.Fatalf("Deprovision: %v", err)
			}
			unchanged("after deprovisioning the agent")
			wantNoObjects(t, rt, id)
		})
	}
}

// wantForeignRefused fails the test unless err is a conflict saying that
// the object of kind at namespace/name was not created for the agent.
func wantForeignRefused(t *testing.T, op, kind, object string, err error) {
	t.Helper()
	if !agentruntime.IsKind(err, agentruntime.KindConflict) || !strings.Contains(err.Error(), kind+" "+object+" was not created for this agent") {
		t.Errorf("%s beside the foreign %s %s = %v, want a conflict saying the %s is not the agent's", op, kind, object, err, kind)
	}
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
		t.Errorf("agent %s of scope %s has objects left, want none: %v", id, rt.opts.Scope, left)
	}
}
