package container

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	containertypes "github.com/moby/moby/api/types/container"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// The engine is the record of what runs; the state dir keeps, beside it,
// what must outlive a container: the intent to create one, written before
// the engine is asked, and the host port the agent was given, so that a
// container removed behind the adapter's back (docker rm -f) comes back on
// the port its clients know.
//
//	state left by a crash or a hand        recovery
//	intent file, no container              Get reads the agent damaged, so it stays tracked;
//	  (create cut, docker rm -f, or a      the next provision creates the container, on the
//	  removal the engine finished after    port the file keeps when it is free, and destroy
//	  its provider died)                   deprovisions it
//	container renamed aside (replace cut)  removed before the agent is started, and by destroy
//	container cut off its network          started in a new container, which joins it again
//	temporary file of an intent write      goes with the agent's deprovision
//	  (write cut)
//	unclaimed creation, creator dead       a create of the very same spec takes the agent over
//	container under its name of before     read there; the next operation holding the agent's
//	  (an earlier version's), intent       lock moves the intent, then renames the container
//	  under that name, the new, or both    (a move cut short is finished then)
//	volume of write-only values that no    removed by the next provision that creates the
//	  container mounts (docker rm, create  container, by the removal of any of the agent's
//	  cut short)                           containers, and by destroy

// recordDir is the adapter's part of the state dir.
const recordDir = "container/agents"

// intent is what the adapter writes down before it creates an agent's
// container.
type intent struct {
	Port int `json:"port"`
	// Creation is set by a create-only provision until the agent is
	// claimed: the spec it was created for. Its creator holds the agent's
	// creator lock until it exits, so that a create of the very same spec
	// takes over an agent whose creator died before its caller recorded it.
	Creation *creation `json:"creation,omitempty"`
}

type creation struct {
	ConfigSHA256 string `json:"config_sha256"`
	EnvAllowlist string `json:"env_allowlist,omitempty"`
}

// creatorKey names the creator lock of the agent, which its creator holds
// until it exits (statedir.Dir.HoldCreator).
func (r *Runtime) creatorKey(id string) string { return r.containerName(id) }

// takenOverBy reports whether a create-only provision of spec may take the
// agent's existing container over: a create of that very spec made it, no
// one claimed it since, and its creator has exited.
func (r *Runtime) takenOverBy(ctx context.Context, id string, c creation) bool {
	in := r.readIntent(id)
	return in != nil && in.Creation != nil && *in.Creation == c && r.opts.StateDir.CreatorGone(ctx, r.creatorKey(id))
}

// Claim records that the caller tracks the agent, so that no later create
// takes it over.
func (r *Runtime) Claim(ctx context.Context, id string) error {
	const op = "claim"
	lock, err := r.lock(ctx, id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	// Found under its old name, the agent's intent file moves to its name.
	if _, err := r.current(ctx, op, id); err != nil && !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		return err
	}
	in := r.readIntent(id)
	if in == nil || in.Creation == nil {
		return nil
	}
	in.Creation = nil
	if err := r.writeIntent(op, id, *in); err != nil {
		return err
	}
	r.opts.StateDir.ReleaseCreator(ctx, r.creatorKey(id))
	return nil
}

// intentFile is the intent file of the agent whose container is named
// container.
func intentFile(container string) string {
	return path.Join(recordDir, container+".json")
}

// readIntent returns the agent's intent file; nil when there is none or it
// cannot be read, as it only spares a port.
func (r *Runtime) readIntent(id string) *intent {
	return r.readIntentAt(r.containerName(id))
}

// intentOf is the intent file of the agent whose container is c: under the
// agent's name, or, until current moves it, under the old name c still
// has. The file of an old name is read only with the container that holds
// the name: under the old names, another agent's could have it too.
func (r *Runtime) intentOf(id string, c *containertypes.InspectResponse) *intent {
	if in := r.readIntent(id); in != nil {
		return in
	}
	return r.readIntentAt(strings.TrimPrefix(c.Name, "/"))
}

func (r *Runtime) readIntentAt(container string) *intent {
	data, err := r.opts.StateDir.ReadFile(intentFile(container))
	if err != nil {
		return nil
	}
	var in intent
	if json.Unmarshal(data, &in) != nil || in.Port <= 0 {
		return nil
	}
	return &in
}

// writeIntent records, durably, the container about to be created.
func (r *Runtime) writeIntent(op, id string, in intent) error {
	data, err := json.Marshal(in)
	if err == nil {
		err = r.opts.StateDir.WriteFile(intentFile(r.containerName(id)), data)
	}
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "record the container about to be created")
	}
	return nil
}

// removeIntent removes the agent's intent file, and the temporary files a
// write of it cut short by a crash left beside it.
func (r *Runtime) removeIntent(op, id string) error {
	temps, _ := filepath.Glob(r.opts.StateDir.Join(recordDir, "."+r.containerName(id)+".json.tmp-*"))
	for _, f := range append(temps, r.opts.StateDir.Join(intentFile(r.containerName(id)))) {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
		}
	}
	return nil
}

// moveIntent moves the intent file of the agent's container named old to
// the agent's name, keeping the one there if a move cut short left both.
func (r *Runtime) moveIntent(op, id, old string) error {
	data, err := r.opts.StateDir.ReadFile(intentFile(old))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		if _, err = r.opts.StateDir.ReadFile(intentFile(r.containerName(id))); errors.Is(err, fs.ErrNotExist) {
			err = r.opts.StateDir.WriteFile(intentFile(r.containerName(id)), data)
		}
	}
	if err == nil {
		err = os.Remove(r.opts.StateDir.Join(intentFile(old)))
	}
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "move the agent's record to its container's new name %s", r.containerName(id))
	}
	return nil
}

// connected reports whether the container is attached to a network, as
// its network mode asks: one cut off by `docker network disconnect` is not,
// and only a new container joins it again.
func connected(c *containertypes.InspectResponse) bool {
	if c.HostConfig != nil {
		switch mode := c.HostConfig.NetworkMode; {
		case mode.IsHost(), mode.IsNone(), mode.IsContainer():
			return true
		}
	}
	return c.NetworkSettings != nil && len(c.NetworkSettings.Networks) > 0
}
