package container

import (
	"context"
	"time"

	containertypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
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
	// found it exited, its restart already under way: such a container is
	// watched a moment longer, and the stop is repeated, a bounded number
	// of times, until the container stays down.
	watch := r.mayBeRestarting(ctx, container)
	for range stopAttempts {
		if _, err := r.cli.ContainerStop(ctx, container, client.ContainerStopOptions{Timeout: &grace}); err != nil {
			return r.engineError(op, id, err)
		}
		if r.staysDown(ctx, container, watch) {
			return nil
		}
	}
	return nil
}

// restartSettle is how long a container that exited on its own is
// watched after a stop for a restart its engine had under way. Podman
// restarts from a cleanup process of its own, which a loaded machine can
// hold back for seconds.
const restartSettle = 5 * time.Second

// staysDown reports whether the stopped container is down and, when
// watch asks, stays down for restartSettle.
func (r *Runtime) staysDown(ctx context.Context, container string, watch bool) bool {
	deadline := time.Now().Add(restartSettle)
	for {
		if r.stillUp(ctx, container) {
			return false
		}
		if !watch || time.Now().After(deadline) || ctx.Err() != nil {
			return true
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
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

// stillUp reports whether the engine has the container running or
// restarting; one it cannot find is down.
func (r *Runtime) stillUp(ctx context.Context, container string) bool {
	res, err := r.cli.ContainerInspect(ctx, container, client.ContainerInspectOptions{})
	st := res.Container.State
	return err == nil && st != nil && (st.Running || st.Restarting)
}

// stopAttempts bounds the stops of a container an engine keeps restarting.
const stopAttempts = 3
