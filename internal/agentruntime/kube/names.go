package kube

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// locate finds the agent's objects and returns the name they have, or get
// once created, with its Deployment, or a NotFound error when it has none.
//
// That name is objectName, but for an agent created before names told
// scopes apart whose Deployment, or else ConfigMap, is under its old name
// and labelled as its own: that agent keeps its old name, and its Service
// its address, until it is destroyed. Labels decide, as under the old
// names another agent's objects may have that name. The rule reads
// nothing but the cluster, so every process comes to the same name, and a
// crash leaves the objects under the name they had; the Deployment is
// created first and the ConfigMap deleted last, so an agent that has
// either is found under its name.
func (r *Runtime) locate(ctx context.Context, op, id string) (string, *appsv1.Deployment, error) {
	name, old := r.objectName(id), r.oldObjectName(id)
	d, err := r.deploymentNamed(ctx, op, id, name)
	if old == name || !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return name, d, err
	}
	od, oerr := r.deploymentNamed(ctx, op, id, old)
	switch {
	case oerr == nil:
		r.oldNames.Store(id, old)
		return old, od, nil
	case agentruntime.IsKind(oerr, agentruntime.KindNotFound):
		cm, cerr := r.cs.CoreV1().ConfigMaps(r.opts.Namespace).Get(ctx, old, metav1.GetOptions{})
		switch {
		case cerr == nil && r.checkOwned(op, id, "configmap", cm) == nil:
			r.oldNames.Store(id, old)
			return old, nil, err
		case cerr != nil && !apierrors.IsNotFound(cerr):
			return name, nil, r.clusterError(op, id, cerr)
		}
	case !agentruntime.IsKind(oerr, agentruntime.KindConflict):
		return name, nil, oerr
	}
	r.oldNames.Delete(id)
	return name, nil, err
}

// learnName records the old name of the agent whose Deployment d is, found
// by a list, for knownName.
func (r *Runtime) learnName(d *appsv1.Deployment) {
	if id := d.Labels[labelAgentID]; d.Name != r.objectName(id) && d.Name == r.oldObjectName(id) {
		r.oldNames.Store(id, d.Name)
	}
}

// knownName is the name of agent id's objects as far as this process has
// seen them, for a plan, which reads nothing of the cluster: Recover, which
// every provider process runs, List and locate learn the old names.
func (r *Runtime) knownName(id string) string {
	if name, ok := r.oldNames.Load(id); ok {
		return name.(string)
	}
	return r.objectName(id)
}
