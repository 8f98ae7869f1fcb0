//go:build linux

package local

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestRecordRemovedWhileRunning removes an agent's files by hand while it
// runs, then creates the agent again on the same port, as an apply would.
// A process the process file still proves to be the agent's is stopped
// first; one nothing identifies is left alone, and Start names the port
// it holds.
func TestRecordRemovedWhileRunning(t *testing.T) {
	tests := []struct {
		name          string
		removed       []func(id string) string
		orphanStopped bool
	}{
		{"record removed", []func(string) string{recordFile}, true},
		{"record and process file removed", []func(string) string{recordFile, processFile}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newRuntime(t, t.TempDir())
			old := provisionAndStart(t, rt, agentConfig("Orphan", ""))
			pid := pidOf(t, old)
			start, err := startTimeOf(pid)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if alive(pid, start) {
					killAndWait(t, old.Instance)
				}
			})
			for _, file := range tt.removed {
				if err := rt.dir.Remove(file(old.ID)); err != nil {
					t.Fatal(err)
				}
			}

			again := agentConfig("Orphan", fmt.Sprintf("[server]\nhttp_port = %d\n", old.Port))
			a, err := rt.Provision(bg, agentruntime.Spec{Config: again, CreateOnly: true})
			if err != nil {
				t.Fatalf("Provision after the record was removed: %v", err)
			}
			wantHealth(t, rt, a.ID, agentruntime.HealthProvisioned)
			err = rt.Start(bg, a.ID)
			if !tt.orphanStopped {
				if !errors.Is(err, agentruntime.ErrConflict) || !strings.Contains(err.Error(), strconv.Itoa(old.Port)) {
					t.Fatalf("Start beside a process nothing identifies = %v, want a conflict naming port %d", err, old.Port)
				}
				if !alive(pid, start) {
					t.Errorf("the process (pid %d) nothing identified as the agent was killed", pid)
				}
				return
			}
			if err != nil {
				t.Fatalf("Start after the orphan was stopped: %v", err)
			}
			if alive(pid, start) {
				t.Errorf("the orphaned agent process (pid %d) still runs", pid)
			}
			waitHealthy(t, rt, a.ID)
			lines, err := rt.Logs(bg, a.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(lines, "\n"), fmt.Sprintf("agent process (pid %d) runs with no record", pid)) {
				t.Errorf("the log does not say the orphan was stopped:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}
