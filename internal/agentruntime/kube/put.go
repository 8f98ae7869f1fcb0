package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// objectAPI is the part of a typed client-go client that put needs.
type objectAPI[T metav1.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// put creates want, or updates the object of its name when this agent owns
// it; keep, if set, copies into want what the cluster assigned to the
// object it replaces.
func put[T metav1.Object](ctx context.Context, r *Runtime, op, id, kind string, api objectAPI[T], want T, keep func(have, want T)) error {
	have, err := api.Get(ctx, want.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = api.Create(ctx, want, metav1.CreateOptions{FieldManager: managedByValue})
	case err == nil:
		if err := r.checkOwned(op, id, kind, have); err != nil {
			return err
		}
		want.SetResourceVersion(have.GetResourceVersion())
		if keep != nil {
			keep(have, want)
		}
		_, err = api.Update(ctx, want, metav1.UpdateOptions{FieldManager: managedByValue})
	}
	if err != nil {
		return r.clusterError(op, id, err)
	}
	return nil
}

// agentObjects are the agent's objects besides its Deployment, as they
// are to be.
type agentObjects struct {
	configMap *corev1.ConfigMap
	secret    *corev1.Secret
	service   *corev1.Service
}

// putObjects creates or updates each of objects that is set: what the
// pods read comes before the Service that leads to them.
func (r *Runtime) putObjects(ctx context.Context, op, id string, objects agentObjects) error {
	core, ns := r.cs.CoreV1(), r.opts.Namespace
	if objects.configMap != nil {
		if err := put(ctx, r, op, id, "configmap", core.ConfigMaps(ns), objects.configMap, nil); err != nil {
			return err
		}
	}
	if objects.secret != nil {
		if err := put(ctx, r, op, id, "secret", core.Secrets(ns), objects.secret, nil); err != nil {
			return err
		}
	}
	if objects.service == nil {
		return nil
	}
	return put(ctx, r, op, id, "service", core.Services(ns), objects.service, keepServiceAddresses)
}

// checkNameFree refuses to make an agent whose name another's ConfigMap,
// Secret or Service has.
func (r *Runtime) checkNameFree(ctx context.Context, op, id, name string) error {
	core, ns := r.cs.CoreV1(), r.opts.Namespace
	if err := ownedOrAbsent(ctx, r, op, id, "configmap", core.ConfigMaps(ns), name); err != nil {
		return err
	}
	if err := ownedOrAbsent(ctx, r, op, id, "secret", core.Secrets(ns), name); err != nil {
		return err
	}
	return ownedOrAbsent(ctx, r, op, id, "service", core.Services(ns), name)
}

func ownedOrAbsent[T metav1.Object](ctx context.Context, r *Runtime, op, id, kind string, api objectAPI[T], name string) error {
	_, err := getOwned(ctx, r, op, id, kind, api, name)
	return err
}

// getOwned returns the object of name when it is the agent's, the zero T
// (nil) when there is none, and an error when it is another's.
func getOwned[T metav1.Object](ctx context.Context, r *Runtime, op, id, kind string, api objectAPI[T], name string) (T, error) {
	var none T
	have, err := api.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return none, nil
	case err != nil:
		return none, r.clusterError(op, id, err)
	}
	if err := r.checkOwned(op, id, kind, have); err != nil {
		return none, err
	}
	return have, nil
}

// keepServiceAddresses keeps the addresses the cluster gave a Service, and
// its node port while the Service keeps its type and port.
func keepServiceAddresses(have, want *corev1.Service) {
	want.Spec.ClusterIP, want.Spec.ClusterIPs = have.Spec.ClusterIP, have.Spec.ClusterIPs
	want.Spec.IPFamilies, want.Spec.IPFamilyPolicy = have.Spec.IPFamilies, have.Spec.IPFamilyPolicy
	if want.Spec.Type == have.Spec.Type && len(have.Spec.Ports) == 1 && have.Spec.Ports[0].Port == want.Spec.Ports[0].Port {
		want.Spec.Ports[0].NodePort = have.Spec.Ports[0].NodePort
	}
}
