package agentruntime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Allocated ports are drawn from this range minus the kernel's ephemeral
// range, so that while an agent is stopped no outgoing connection of this
// machine takes its port.
const (
	lowestAllocatedPort  = 10000
	highestAllocatedPort = 65535
)

// allocateAttempts bounds the search for a free port.
const allocateAttempts = 200

// ephemeralRangeFile is where Linux keeps the ports it gives outgoing
// connections; elsewhere Linux's default range is assumed.
const ephemeralRangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// FreePort picks a port that binds on host now, lies outside the kernel's
// ephemeral range, and that held does not report as kept for another agent
// (held may be nil). The caller serialises allocations, so that two agents
// never receive the same port.
func FreePort(ctx context.Context, host string, held func(port int) bool) (int, error) {
	ephemeralLow, ephemeralHigh := EphemeralPortRange()
	for range allocateAttempts {
		port := lowestAllocatedPort + rand.IntN(highestAllocatedPort-lowestAllocatedPort+1)
		if (port >= ephemeralLow && port <= ephemeralHigh) || (held != nil && held(port)) {
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
	return 0, fmt.Errorf("find a free port on %s: none of %d tried outside the ephemeral range %d-%d was free; free some ports or set [server] http_port in the agent config",
		host, allocateAttempts, ephemeralLow, ephemeralHigh)
}

// EphemeralPortRange returns the kernel's range of ports for outgoing
// connections, or Linux's default when it cannot be read.
func EphemeralPortRange() (low, high int) {
	low, high = 32768, 60999
	data, err := os.ReadFile(ephemeralRangeFile)
	if err != nil {
		return low, high
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return low, high
	}
	l, errL := strconv.Atoi(fields[0])
	h, errH := strconv.Atoi(fields[1])
	if errL != nil || errH != nil || l > h {
		return low, high
	}
	return l, h
}
