//go:build linux

package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// TestRecordRemovedWhileRunning removes an agent's files by hand while it
// runs, then creates the agent again on the same port, as an apply would.
// The process is stopped first, whether the process file still names it
// or only the identity it carries in the process table shows it.
func TestRecordRemovedWhileRunning(t *testing.T) {
	tests := []struct {
		name    string
		removed []func(id string) string
	}{
		{"record removed", []func(string) string{recordFile}},
		{"record and process file removed", []func(string) string{recordFile, processFile}},
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
			if !strings.Contains(strings.Join(lines, "\n"), fmt.Sprintf("agent process (pid %d) runs with no usable record", pid)) {
				t.Errorf("the log does not say the orphan was stopped:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// TestStateDirReplacedUnderRunningAgents moves the state dir away while an
// agent runs and makes a new one at its path: creating the agent there is
// refused, saying it still runs, rather than starting a duplicate. A
// program the operator brings, which is told only the digest of its state
// dir's path, is told from another state dir's agent as surely as the
// built-in host.
func TestStateDirReplacedUnderRunningAgents(t *testing.T) {
	tests := []struct {
		name   string
		config func(t *testing.T) []byte
	}{
		{"built-in host", func(*testing.T) []byte { return agentConfig("Replaced", "") }},
		{"brought program", func(t *testing.T) []byte {
			return sdkAgent(t, "Replaced", a2acli.JSONRPC, "1.0", `"--echo", "--transport", "jsonrpc"`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state")
			config := tt.config(t)
			old := newRuntime(t, path)
			a, err := old.Provision(bg, agentruntime.Spec{Config: config})
			if err != nil {
				t.Fatal(err)
			}
			if err := old.Start(bg, a.ID); err != nil {
				t.Fatal(err)
			}
			waitHealthy(t, old, a.ID)
			moved := path + "-moved"
			if err := os.Rename(path, moved); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := newRuntime(t, moved).Deprovision(bg, a.ID); err != nil {
					t.Errorf("cleanup: Deprovision %s where its state dir went: %v", a.ID, err)
				}
			})

			_, err = newRuntime(t, path).Provision(bg, agentruntime.Spec{Config: config})
			if !agentruntime.IsKind(err, agentruntime.KindUnmanaged) {
				t.Fatalf("Provision in the state dir made in the old one's place = %v, want it refused as unmanaged", err)
			}
			for _, want := range []string{"still runs", path, "set state_dir", "kill -TERM"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}
