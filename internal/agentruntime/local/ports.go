//go:build linux

package local

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// portReleaseWait is how long a port may stay bound after its holder died:
// a process reads as dead once its main thread has exited, but its sockets
// close only when its last thread has.
const portReleaseWait = time.Second

// allocateAttempts bounds the search for a port no record holds.
const allocateAttempts = 200

// Allocated ports are drawn from outside the kernel's ephemeral range, so
// that while an agent is stopped no outgoing connection takes its port.
const (
	lowestPort  = 10000
	highestPort = 65535
)

// allocatePort picks a port on host that binds now and that no record
// holds, stopped agents included, since they keep their port for their next
// start. The caller holds the state dir lock, so two provisions never
// choose the same port.
func allocatePort(ctx context.Context, host string, recs []*record) (int, error) {
	held := map[int]bool{}
	for _, rec := range recs {
		held[rec.Port] = true
	}
	ephemeralLow, ephemeralHigh := ephemeralRange()
	for range allocateAttempts {
		port := lowestPort + rand.IntN(highestPort-lowestPort+1)
		if held[port] || (port >= ephemeralLow && port <= ephemeralHigh) {
			continue
		}
		l, err := new(net.ListenConfig).Listen(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			continue
		}
		if err := l.Close(); err != nil {
			return 0, fmt.Errorf("find a free port on %s: %w", host, err)
		}
		return port, nil
	}
	return 0, fmt.Errorf("find a free port on %s: none of %d tried outside the ephemeral range %d-%d was free; set server.http_port",
		host, allocateAttempts, ephemeralLow, ephemeralHigh)
}

// ephemeralRange reads the kernel's range for outgoing connections' ports,
// or Linux's default.
func ephemeralRange() (int, int) {
	low, high := 32768, 60999
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return low, high
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return low, high
	}
	l, errL := strconv.Atoi(fields[0])
	h, errH := strconv.Atoi(fields[1])
	if errL != nil || errH != nil {
		return low, high
	}
	return l, h
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
