package agentruntime

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
)

func TestFreePort(t *testing.T) {
	low, high := EphemeralPortRange()
	tests := []struct {
		name    string
		held    func(int) bool
		wantErr bool
	}{
		{"nothing held", nil, false},
		{"held ports are skipped", func(p int) bool { return p%2 == 0 }, false},
		{"every port held", func(int) bool { return true }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port, err := FreePort(context.Background(), "127.0.0.1", tt.held)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "http_port") {
					t.Errorf("FreePort = %d, %v; want an error pointing at http_port", port, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if port >= low && port <= high {
				t.Errorf("port %d lies in the ephemeral range %d-%d", port, low, high)
			}
			if port < lowestAllocatedPort || (tt.held != nil && tt.held(port)) {
				t.Errorf("port %d is below %d or held", port, lowestAllocatedPort)
			}
			l, err := new(net.ListenConfig).Listen(context.Background(), "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				t.Fatalf("port %d does not bind: %v", port, err)
			}
			_ = l.Close()
		})
	}
}
