//go:build linux

package local

import (
	"os/exec"
	"slices"
	"testing"
)

// TestProcessesNamed runs processes whose environments carry agent ids
// first, last and in between, one whose id merely begins like another, and
// one that names an id only inside another variable's value: a look for
// one id finds exactly its processes, and the whole table every agent.
func TestProcessesNamed(t *testing.T) {
	identity := func(id string) []string { return []string{envAgentID + "=" + id, envStateDirID + "=scan-test-dir"} }
	envs := map[string][]string{
		"first":   identity("scan-agent"),
		"last":    append([]string{"PATH=/usr/bin:/bin", envStateDirID + "=scan-test-dir"}, envAgentID+"=scan-agent"),
		"between": append(append([]string{"A=1"}, identity("scan-agent")...), "B=2"),
		"longer":  identity("scan-agent-two"),
		"value":   {"NOTE=" + envAgentID + "=scan-agent", envStateDirID + "=scan-test-dir"},
	}
	pids := map[string]int{}
	for name, env := range envs {
		cmd := exec.CommandContext(t.Context(), "sleep", "60")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		pids[name] = cmd.Process.Pid
	}
	pidsOf := func(procs []Process) []int {
		var out []int
		for _, p := range procs {
			out = append(out, p.PID)
		}
		return out
	}
	named := pidsOf(processesNamed("scan-agent"))
	for name, pid := range pids {
		want := name == "first" || name == "last" || name == "between"
		if slices.Contains(named, pid) != want {
			t.Errorf("processesNamed(scan-agent) finds the %q process: %v, want %v", name, !want, want)
		}
	}
	all := pidsOf(ScanProcesses())
	for name, pid := range pids {
		if want := name != "value"; slices.Contains(all, pid) != want {
			t.Errorf("ScanProcesses finds the %q process: %v, want %v", name, !want, want)
		}
	}
}
