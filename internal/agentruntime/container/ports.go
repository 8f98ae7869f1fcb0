package container

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// Ports handed out by this process, by the id of the agent each went to,
// as they are not visible as container labels until the container exists;
// shared by every Runtime because they share the host's ports.
var (
	reservedMu    sync.Mutex
	reservedPorts = map[int]string{}
)

// remotePortRange is where ports are drawn for an engine on another host,
// whose free ports cannot be asked from here; the engine refuses a taken one
// at start, with a clear error. It lies below the ephemeral ranges of Linux
// (from 32768) and of other systems (from 49152), so that the engine host's
// outgoing connections do not take an agent's port while it is stopped.
const remotePortLow, remotePortHigh = 20000, 32000

// portAttempts bounds the search for a free port on a remote engine.
const portAttempts = 64

// allocatePort chooses a host port for a new agent, once: it is kept in the
// container's labels and reused by every later container of the agent.
func (r *Runtime) allocatePort(ctx context.Context, id string) (int, error) {
	taken, err := r.labelledPorts(ctx)
	if err != nil {
		return 0, err
	}
	reservedMu.Lock()
	defer reservedMu.Unlock()
	held := func(port int) bool { return taken[port] || reservedPorts[port] != "" }
	port, err := r.candidatePort(ctx, held)
	if err != nil {
		return 0, agentruntime.Errorf(agentruntime.KindBackend, "allocate port", "", err,
			"no free port on %s; free some ports or set [server] http_port in the agent config", r.opts.AdvertiseHost)
	}
	reservedPorts[port] = id
	return port, nil
}

// claimPort gives agent id, which has no container, a port it had before or
// is preferred for it, when no container is labelled with it, this process
// has not handed it to another agent, and, on an engine of this machine,
// it binds now.
func (r *Runtime) claimPort(ctx context.Context, id string, port int) bool {
	if port <= 0 {
		return false
	}
	taken, err := r.labelledPorts(ctx)
	if err != nil || taken[port] {
		return false
	}
	reservedMu.Lock()
	defer reservedMu.Unlock()
	if holder := reservedPorts[port]; holder != "" && holder != id {
		return false
	}
	if r.engineIsLocal() {
		l, err := new(net.ListenConfig).Listen(ctx, "tcp", net.JoinHostPort(r.opts.publishAddr().String(), strconv.Itoa(port)))
		if err != nil {
			return false
		}
		_ = l.Close()
	}
	reservedPorts[port] = id
	return true
}

// releasePorts forgets the ports handed to agent id, which is gone.
func releasePorts(id string) {
	reservedMu.Lock()
	defer reservedMu.Unlock()
	for port, holder := range reservedPorts {
		if holder == id {
			delete(reservedPorts, port)
		}
	}
}

// candidatePort finds a port that binds now, outside the kernel's
// ephemeral range, when the engine publishes on this machine, so that no
// outgoing connection takes a stopped agent's port; for a remote engine,
// whose free ports cannot be asked from here, it draws one at random.
func (r *Runtime) candidatePort(ctx context.Context, held func(int) bool) (int, error) {
	if r.engineIsLocal() {
		return agentruntime.FreePort(ctx, r.opts.publishAddr().String(), held)
	}
	for range portAttempts {
		if port := remotePortLow + rand.IntN(remotePortHigh-remotePortLow); !held(port) {
			return port, nil
		}
	}
	return 0, fmt.Errorf("every one of %d ports drawn from %d-%d is kept for another agent", portAttempts, remotePortLow, remotePortHigh)
}

// engineIsLocal says whether the engine publishes ports on this machine: a
// socket, or a tcp:// or ssh:// address of the loopback interface.
func (r *Runtime) engineIsLocal() bool {
	u, err := url.Parse(r.engine.Host)
	if err != nil {
		return false
	}
	switch host := u.Hostname(); {
	case u.Scheme == "unix" || u.Scheme == "npipe":
		return true
	case host == "localhost":
		return true
	default:
		ip, err := netip.ParseAddr(host)
		return err == nil && ip.IsLoopback()
	}
}

// labelledPorts are the ports of every agent container on the engine, of
// any scope, running or not: each is kept for its agent.
func (r *Runtime) labelledPorts(ctx context.Context) (map[int]bool, error) {
	res, err := r.cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: client.Filters{}.Add("label", labelManagedBy+"="+managedByValue),
	})
	if err != nil {
		return nil, r.engineError("allocate port", "", err)
	}
	taken := map[int]bool{}
	for _, c := range res.Items {
		if p, err := strconv.Atoi(c.Labels[labelPort]); err == nil {
			taken[p] = true
		}
	}
	return taken, nil
}

// isPortTaken recognises the engine's refusal to publish on a busy port
// (Docker's and Podman's wordings).
func isPortTaken(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "port is already allocated") ||
		strings.Contains(msg, "address already in use")
}
