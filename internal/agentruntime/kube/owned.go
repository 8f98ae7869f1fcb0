package kube

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
)

// listDeleter is the part of a typed client-go client that deleteOwned
// needs.
type listDeleter[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// deleteOwned deletes the objects of one kind that are labelled as agent
// id's, whatever their names, and nothing else: an object of another's
// under the agent's name stays. Each delete holds only while the object is
// the one listed, same UID and resource version, so that one replaced or
// relabelled since is not deleted on the strength of an old look; the
// kind is listed again then. Objects go with what they own: in the
// background, or, with propagation foreground, first.
func deleteOwned[L runtime.Object](ctx context.Context, r *Runtime, op, id, kind string, api listDeleter[L], propagation metav1.DeletionPropagation) error {
	sel := metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: r.selector(id)})
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		list, err := api.List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		for _, item := range items {
			m, err := meta.Accessor(item)
			if err != nil {
				return err
			}
			if m.GetDeletionTimestamp() != nil || r.checkOwned(op, id, kind, m) != nil {
				continue
			}
			uid, version := m.GetUID(), m.GetResourceVersion()
			err = api.Delete(ctx, m.GetName(), metav1.DeleteOptions{
				PropagationPolicy: &propagation,
				Preconditions:     &metav1.Preconditions{UID: &uid, ResourceVersion: &version},
			})
			if err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return r.clusterError(op, id, err)
	}
	return nil
}
