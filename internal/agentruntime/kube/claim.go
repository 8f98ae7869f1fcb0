package kube

import (
	"context"
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// A create-only provision marks the Deployment it creates, in the very
// call that creates it, with the creation: the spec it was made for and
// the state dir of the process that made it, which holds the agent's
// creator lock there until it exits. Terraform claims the agent once it
// has recorded it (Claim, which removes the mark), and a provision by the
// owner replaces the annotations without it.
//
//	state left by a crash                  recovery
//	Deployment only (create cut before     a create of the very same spec from a process of
//	  its ConfigMap, Secret and Service)   the same state dir takes the agent over, once its
//	  or every object, unclaimed           creator is gone, and makes what is missing
//	a creation of another spec or state    refused as existing: import the agent, or destroy
//	  dir, or a creator that still lives   it, as for any agent no create may claim
//
// A process of another state dir cannot tell whether the creator lives, so
// it never takes the agent over.
const annotationCreation = "a2a/creation"

// creation says which create made an agent.
type creation struct {
	ConfigSHA256 string `json:"config_sha256"`
	EnvAllowlist string `json:"env_allowlist,omitempty"`
	// StateDir is the id of the state dir (statedir.Dir.ID) in which the
	// creator holds the agent's creator lock.
	StateDir string `json:"state_dir"`
}

// annotation is the creation as the Deployment carries it.
func (c creation) annotation() string {
	data, _ := json.Marshal(c)
	return string(data)
}

// creationOf is the creation the Deployment is marked with, if any.
func creationOf(d *appsv1.Deployment) (creation, bool) {
	var c creation
	raw, marked := d.Annotations[annotationCreation]
	return c, marked && json.Unmarshal([]byte(raw), &c) == nil
}

// takenOverBy reports whether a create-only provision that would make the
// agent as want may take over its existing Deployment d: a create of that
// very spec, from this state dir, made it, no one claimed it since, and
// its creator has exited.
func (r *Runtime) takenOverBy(ctx context.Context, id string, d *appsv1.Deployment, want creation) bool {
	have, marked := creationOf(d)
	return marked && have == want && r.opts.StateDir.CreatorGone(ctx, r.lockKey(id))
}

// holdCreator takes the agent's creator lock, for as long as this process
// lives or until the agent is claimed or removed.
func (r *Runtime) holdCreator(ctx context.Context, op, id string) error {
	if err := r.opts.StateDir.HoldCreator(ctx, r.lockKey(id)); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "take the creator lock of the agent")
	}
	return nil
}

// releaseCreator lets go of the agent's creator lock, and removes it from
// the state dir unless a live creator holds it.
func (r *Runtime) releaseCreator(ctx context.Context, id string) {
	r.opts.StateDir.ReleaseCreator(ctx, r.lockKey(id))
}

// Claim records that the caller tracks the agent, so that no later create
// takes it over: its Deployment's creation mark goes. An agent without
// one, or without a Deployment, is success.
func (r *Runtime) Claim(ctx context.Context, id string) error {
	const op = "claim"
	lock, err := r.lock(ctx, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	d, err := r.getDeployment(ctx, op, id)
	switch {
	case agentruntime.IsKind(err, agentruntime.KindNotFound):
		return nil
	case err != nil:
		return err
	}
	if _, marked := d.Annotations[annotationCreation]; marked {
		err := r.updateDeployment(ctx, op, id, func(d *appsv1.Deployment) { delete(d.Annotations, annotationCreation) })
		if err != nil {
			return err
		}
	}
	r.releaseCreator(ctx, id)
	return nil
}
