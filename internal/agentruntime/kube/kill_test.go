package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/kubecluster"
)

// killAgentContainer, on the cluster make test-kube runs on this machine
// (its nodes' containers are this machine's processes), kills the
// processes of the agent's container itself, as a crash would: the kubelet,
// which did not stop them, restarts the container in its pod and counts
// it. The API server alone cannot do that (it deletes pods, which are
// replaced, not restarted), so on a cluster elsewhere the case is left out.
func killAgentContainer(opts Options) func(t *testing.T, id string) {
	if os.Getenv(kubecluster.ScriptEnv) == "" || os.Geteuid() != 0 {
		return nil
	}
	return func(t *testing.T, id string) {
		rt := newRuntime(t, opts)
		pods, err := rt.pods(testContext(t), "test", id)
		if err != nil {
			t.Fatal(err)
		}
		var container string
		for _, p := range pods {
			if s := agentStatus(p); p.DeletionTimestamp == nil && s.State.Running != nil {
				_, container, _ = strings.Cut(s.ContainerID, "://")
				break
			}
		}
		if container == "" {
			t.Fatalf("agent %s has no running container to kill", id)
		}
		pids := processesOf(t, container)
		if len(pids) == 0 {
			t.Fatalf("no process of this machine runs in container %s of agent %s", container, id)
		}
		for _, pid := range pids {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				t.Fatalf("kill -9 %d, of agent %s: %v", pid, id, err)
			}
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(processesOf(t, container)) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("container %s of agent %s still runs 30s after kill -9", container, id)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// processesOf lists the processes whose cgroup names the container: runc
// puts each container in a cgroup of its id.
func processesOf(t *testing.T, container string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cgroup, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cgroup"))
		if err == nil && strings.Contains(string(cgroup), container) {
			pids = append(pids, pid)
		}
	}
	return pids
}
