package container

import (
	"context"
	"errors"
	"time"

	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// stopContainer stops the agent's container named or numbered container
// within the grace period: SIGTERM, and SIGKILL only once it has passed.
func (r *Runtime) stopContainer(ctx context.Context, op, id, container string) error {
	grace := r.opts.graceSeconds()
	// A suspended agent (hung, SIGSTOP) would act on the engine's SIGTERM
	// only after the whole grace period; waking it first lets it exit at
	// once. A container that is not running refuses the signal, which is
	// fine: the stop below is what reports real failures.
	_, _ = r.cli.ContainerKill(ctx, container, client.ContainerKillOptions{Signal: "SIGCONT"})
	// Podman may restart a program that exited on its own after a stop that
	// found it exited, its restart already under way; and in Podman 4.3 a
	// stop of an exited container does not even keep its restart policy
	// from restarting it again (podman#18259), so a program that exits at once
	// restarts until a stop lands while it runs. Such a container is
	// watched after each stop, and stopped again at each restart seen,
	// until it stays down.
	watch := r.mayBeRestarting(ctx, container)
	giveUp := time.Now().Add(restartFight)
	for {
		if _, err := r.cli.ContainerStop(ctx, container, client.ContainerStopOptions{Timeout: &grace}); err != nil {
			return r.engineError(op, id, err)
		}
		if r.staysDown(ctx, container, watch) {
			return nil
		}
		watch = true
		if time.Now().After(giveUp) || ctx.Err() != nil {
			return agentruntime.Errorf(agentruntime.KindBackend, op, id, errKeepsRestarting,
				"the engine at %s restarted the agent's container %s after every stop for %s, under its restart policy: "+
					"stop it on the engine (docker stop or podman stop), then apply or destroy again", r.engine.Host, shortID(container), restartFight)
		}
	}
}

// errKeepsRestarting marks a stop that its engine's restarts outlasted; a
// removal, which kills the container, still goes through.
var errKeepsRestarting = errors.New("the engine keeps restarting the container")

// restartSettle is how long a container that exited on its own is
// watched after a stop for a restart its engine had under way. Podman
// restarts from a cleanup process of its own, which a loaded machine can
// hold back for seconds.
const restartSettle = 5 * time.Second

// restartFight bounds how long a stop goes on stopping a container its
// engine keeps restarting.
const restartFight = time.Minute

// restartLook paces the looks at a watched container: a program that
// exits at once runs for milliseconds, and a stop must land while it runs.
const restartLook = 20 * time.Millisecond

// staysDown reports whether the stopped container is down and, when
// watch asks, stays down for restartSettle: neither its state nor its
// start time, which a restart that came and went between two looks
// changes, shows a restart.
func (r *Runtime) staysDown(ctx context.Context, container string, watch bool) bool {
	first, up := r.look(ctx, container)
	if up {
		return false
	}
	deadline := time.Now().Add(restartSettle)
	for watch && time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(restartLook):
		}
		if now, up := r.look(ctx, container); up || now != first {
			return false
		}
	}
	return true
}

// mayBeRestarting reports whether the engine may have a restart of the
// container under way, or about to be: it is restarting; it exited on its
// own a moment ago under a restart policy that restarts it; or it runs
// after its engine restarted it, so that it may exit on its own again just
// as it is stopped, which Podman answers with one more restart.
func (r *Runtime) mayBeRestarting(ctx context.Context, container string) bool {
	res, err := r.cli.ContainerInspect(ctx, container, client.ContainerInspectOptions{})
	c := res.Container
	if err != nil || c.State == nil || c.HostConfig == nil {
		return false
	}
	if c.State.Restarting {
		return true
	}
	policy := c.HostConfig.RestartPolicy.Name
	if policy == "" || policy == containertypes.RestartPolicyDisabled {
		return false
	}
	if c.State.Running {
		return c.RestartCount > 0
	}
	finished, perr := time.Parse(time.RFC3339Nano, c.State.FinishedAt)
	return perr == nil && time.Since(finished) < 2*restartSettle
}

// run is one run of a container: when it started, and its engine's count
// of restarts.
type run struct {
	started  string
	restarts int
}

// look returns the container's run and whether the engine has it running
// or restarting; one it cannot find is down.
func (r *Runtime) look(ctx context.Context, container string) (run, bool) {
	res, err := r.cli.ContainerInspect(ctx, container, client.ContainerInspectOptions{})
	st := res.Container.State
	if err != nil || st == nil {
		return run{}, false
	}
	return run{started: st.StartedAt, restarts: res.Container.RestartCount}, st.Running || st.Restarting
}
