package kube

import (
	"context"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

var _ agentruntime.Restarter = (*Runtime)(nil)

// Restart rolls the running agent's pods over to fresh ones of the spec
// its Deployment records, as Roll does (one pod more at a time, none taken
// away before its replacement's card answers), its Secret first given the
// values the allowlisted variables have in this process now, its
// write-only values kept: see agentruntime.Restarter. A restart that fails
// puts everything back as Roll does, the previous pods serving on.
func (r *Runtime) Restart(ctx context.Context, id string) error {
	const op = "restart"
	unlock, name, d, err := r.lockAndLocate(ctx, op, id)
	if unlock != nil {
		defer unlock()
	}
	if err != nil {
		return err
	}
	if *d.Spec.Replicas == 0 {
		return agentruntime.Errorf(agentruntime.KindNotRunning, op, id, nil, "the agent is not running: terraform apply starts it")
	}
	cm, err := r.cs.CoreV1().ConfigMaps(r.opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return r.clusterError(op, id, err)
	}
	raw, err := provisionedConfig(d, cm)
	if err == nil && raw == nil {
		err = fmt.Errorf("configmap %s/%s holds no config", r.opts.Namespace, name)
	}
	var cfg *agentconfig.Config
	if err == nil {
		cfg, err = agentconfig.Parse(raw)
	}
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindDamaged, op, id, err,
			"the agent's recorded config cannot be restarted from: terraform apply provisions it again")
	}
	secret, err := r.cs.CoreV1().Secrets(r.opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return r.clusterError(op, id, err)
	}
	if err := r.checkOwned(op, id, "secret", secret); err != nil {
		return err
	}
	ann := d.Annotations
	b := blueprint{name: name, cfg: cfg, injected: splitList(ann[annotationInjectedEnv]), allowlist: ann[annotationAllowlist],
		writeOnly: splitList(ann[annotationWriteOnly]), woVersion: ann[annotationWOVersion]}
	r.shape(&b, workloadOf(d), int(replicasOf(d)))
	if made, ok := creationOf(d); ok {
		// Not yet claimed by its creator, which a restart is not.
		b.creation = &made
	}
	if b.port, err = strconv.Atoi(ann[annotationPort]); err != nil {
		return agentruntime.Errorf(agentruntime.KindDamaged, op, id, err,
			"deployment %s/%s records no port: terraform apply provisions the agent again", d.Namespace, d.Name)
	}
	data, err := refreshedSecretData(secret, b.injected)
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "encode the agent's secret")
	}
	return r.roll(ctx, op, b, data, d)
}
