//go:build linux

package local

import (
	"context"
	"net"
	"strconv"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// portReleaseWait is how long a port may stay bound after its holder died:
// a process reads as dead once its main thread has exited, but its sockets
// close only when its last thread has.
const portReleaseWait = time.Second

// choosePort gives an agent that keeps no port the preferred one when it
// is free, else a free port on host that no record holds, stopped agents
// included, since they keep their port for their next start. The caller
// holds the state dir lock, so two provisions never choose the same port.
func (r *Runtime) choosePort(ctx context.Context, op, id, host string, preferred int) (int, error) {
	held, err := r.heldPorts(op)
	if err != nil {
		return 0, err
	}
	if preferredPortFree(ctx, host, preferred, held) {
		return preferred, nil
	}
	port, err := agentruntime.FreePort(ctx, host, func(port int) bool { return held[port] })
	if err != nil {
		return 0, agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
	}
	return port, nil
}

// preferredPortFree reports whether port, preferred for a new agent, is
// held by no record and binds on host, waiting as checkPortFree does for
// the sockets of a process that just exited (the agent replaced) to close.
func preferredPortFree(ctx context.Context, host string, port int, held map[int]bool) bool {
	if port <= 0 || held[port] {
		return false
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	deadline := time.Now().Add(portReleaseWait)
	for {
		l, err := new(net.ListenConfig).Listen(ctx, "tcp", addr)
		if err == nil {
			return l.Close() == nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(pollInterval)
	}
}

// checkPortFree fails, naming the port and, when it is one of ours, the
// agent holding it, if rec's port cannot be bound now. Other records are
// read only on failure, keeping concurrent starts cheap.
func (r *Runtime) checkPortFree(ctx context.Context, rec *record) error {
	addr := net.JoinHostPort(rec.Host, strconv.Itoa(rec.Port))
	deadline := time.Now().Add(portReleaseWait)
	for {
		l, err := new(net.ListenConfig).Listen(ctx, "tcp", addr)
		if err == nil {
			return l.Close()
		}
		if holder := r.portHolder(rec); holder != "" {
			return agentruntime.Errorf(agentruntime.KindConflict, "start", rec.ID, nil,
				"port %d is in use by agent %q; stop it or give one of them another server.http_port", rec.Port, holder)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return agentruntime.Errorf(agentruntime.KindConflict, "start", rec.ID, err,
				"port %d on %s is in use by another process; free it or set another server.http_port", rec.Port, rec.Host)
		}
		time.Sleep(pollInterval)
	}
}

// portHolder returns the id of the running agent, other than rec, that
// holds rec's port, if any.
func (r *Runtime) portHolder(rec *record) string {
	recs, err := r.loadAll("start")
	if err != nil {
		return ""
	}
	for _, other := range recs {
		if other.ID != rec.ID && other.Port == rec.Port && other.running() {
			return other.ID
		}
	}
	return ""
}
