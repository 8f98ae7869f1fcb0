//go:build linux

package local

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

var bg = context.Background()

// provisionAndStart provisions config, starts it healthy, and removes it
// when the test ends.
func provisionAndStart(t *testing.T, rt *Runtime, config []byte) agentruntime.Agent {
	t.Helper()
	a := provisionOnly(t, rt, agentruntime.Spec{Config: config})
	if err := rt.Start(bg, a.ID); err != nil {
		t.Fatalf("Start %s: %v", a.ID, err)
	}
	waitHealthy(t, rt, a.ID)
	a, err := rt.Get(bg, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func provisionOnly(t *testing.T, rt *Runtime, spec agentruntime.Spec) agentruntime.Agent {
	t.Helper()
	a, err := rt.Provision(bg, spec)
	if err != nil {
		t.Fatalf("Provision: %v", err)
	}
	t.Cleanup(func() {
		if err := rt.Deprovision(bg, a.ID); err != nil {
			t.Errorf("cleanup: Deprovision %s: %v", a.ID, err)
		}
	})
	return a
}

func waitHealthy(t *testing.T, rt agentruntime.Runtime, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, 30*time.Second)
	defer cancel()
	if h, err := agentruntime.WaitHealthy(ctx, rt, id); err != nil {
		t.Fatalf("WaitHealthy %s: %s: %v", id, h, err)
	}
}

func pidOf(t *testing.T, a agentruntime.Agent) int {
	t.Helper()
	pid, err := strconv.Atoi(a.Instance)
	if err != nil {
		t.Fatalf("agent %s instance %q is not a pid", a.ID, a.Instance)
	}
	return pid
}

func wantHealth(t *testing.T, rt *Runtime, id string, want agentruntime.Health) {
	t.Helper()
	a, err := rt.Get(bg, id)
	if err != nil {
		t.Fatal(err)
	}
	if a.Health != want {
		t.Fatalf("Get %s: health %s, want %s", id, a.Health, want)
	}
}

// TestSupervisorRestart kills an agent and its supervisor behind the
// runtime's back (so that nothing restarts it) and checks that neither the runtime that started it nor a fresh one (a new
// provider process) takes it for healthy, and that a fresh runtime adopts
// the agents that live.
func TestSupervisorRestart(t *testing.T) {
	dir := t.TempDir()
	first := newRuntime(t, dir)
	live := provisionAndStart(t, first, agentConfig("Survivor", ""))
	dead := provisionAndStart(t, first, agentConfig("Casualty", ""))
	never := provisionOnly(t, first, agentruntime.Spec{Config: agentConfig("Idle", "")})
	killSupervisor(t, dir, dead.ID)
	killAndWait(t, dead.Instance)

	wantHealth(t, first, dead.ID, agentruntime.HealthStopped)
	fresh := newRuntime(t, dir)
	wantHealth(t, fresh, dead.ID, agentruntime.HealthStopped)
	rec, err := fresh.Recover(bg)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Mode != agentruntime.Adopted || !slices.Equal(rec.IDs, []string{live.ID}) {
		t.Fatalf("Recover = %+v, want adopted [%s]", rec, live.ID)
	}
	want := map[string]agentruntime.Health{
		live.ID: agentruntime.HealthHealthy, dead.ID: agentruntime.HealthStopped, never.ID: agentruntime.HealthProvisioned,
	}
	list, err := fresh.List(bg)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(want) {
		t.Fatalf("List after recover holds %d agents, want %d", len(list), len(want))
	}
	for _, a := range list {
		if a.Health != want[a.ID] {
			t.Errorf("after recover %s reads %s, want %s", a.ID, a.Health, want[a.ID])
		}
	}
	if err := fresh.Start(bg, dead.ID); err != nil {
		t.Fatalf("restart the crashed agent: %v", err)
	}
	waitHealthy(t, fresh, dead.ID)
}

// TestRecycledPID forges records whose pid is alive but belongs to another
// process (its start time differs): the agent must read stopped, and Stop
// must leave that process alone, not signal it at all.
func TestRecycledPID(t *testing.T) {
	bystander, signalLog := startBystander(t)
	tests := []struct {
		name string
		pid  int
	}{
		{"pid of this test process", os.Getpid()},
		{"pid of a process group leader", bystander},
	}
	rt := newRuntime(t, t.TempDir())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Forged "+tt.name, "")})
			start, err := startTimeOf(tt.pid)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := rt.load("test", a.ID)
			if err != nil {
				t.Fatal(err)
			}
			rec.process = process{PID: tt.pid, StartTime: start + 1, BootID: bootID()}
			if err := rt.saveProcess("test", rec); err != nil {
				t.Fatal(err)
			}
			wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
			if got, _ := rt.Get(bg, a.ID); got.Running || got.Instance != "" {
				t.Errorf("Get = %+v, want not running", got)
			}
			if err := rt.Stop(bg, a.ID); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			// The bystander survives SIGTERM, so a Stop that signalled it
			// would have killed it after the grace period: either way
			// Stop's signals leave a mark once it has returned.
			if !alive(tt.pid, start) {
				t.Errorf("pid %d, which is not the agent, is gone after Stop", tt.pid)
			}
			if received, err := os.ReadFile(signalLog); err != nil || len(received) > 0 {
				t.Errorf("the bystander (pid %d) received signals %q (%v), want none", bystander, received, err)
			}
		})
	}
}

// startBystander runs the test binary as a live process that leads its own
// process group, as an agent would, and records every signal it receives
// in the file it returns; it is killed when the test ends.
func startBystander(t *testing.T) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	signalLog := filepath.Join(t.TempDir(), "signals")
	if err := os.WriteFile(signalLog, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(bg, exe)
	cmd.Env = append(os.Environ(), roleEnv+"="+roleBystander, signalLogEnv+"="+signalLog)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// Until it listens, a SIGTERM would kill it unrecorded.
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("bystander said %q (%v), want ready", line, err)
	}
	return cmd.Process.Pid, signalLog
}

// TestStartRefusesConfigNotRecorded leaves the config file and the record
// disagreeing, as an unfinished provision or a hand edit would: Start must
// refuse rather than run one config under the other's digest and injected
// variables, reads must report the agent damaged rather than show that
// file, and provisioning again mends it.
func TestStartRefusesConfigNotRecorded(t *testing.T) {
	original := agentConfig("Mismatch", "")
	other := agentConfig("Mismatch", "# edited\n")
	tests := []struct {
		name     string
		mismatch func(t *testing.T, rt *Runtime, id string)
		// mention is what the error must say besides the remedy.
		mention string
	}{
		{"record written, config not", func(t *testing.T, rt *Runtime, id string) {
			rec, err := rt.load("test", id)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(other)
			rec.ConfigSHA256 = hex.EncodeToString(sum[:])
			if err := rt.save("test", rec); err != nil {
				t.Fatal(err)
			}
		}, "not the config the agent was provisioned with"},
		{"config changed by hand", func(t *testing.T, rt *Runtime, id string) {
			if err := rt.dir.WriteFile(configFile(id), other); err != nil {
				t.Fatal(err)
			}
		}, "not the config the agent was provisioned with"},
		{"config removed", func(t *testing.T, rt *Runtime, id string) {
			if err := rt.dir.Remove(configFile(id)); err != nil {
				t.Fatal(err)
			}
		}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newRuntime(t, t.TempDir())
			a := provisionOnly(t, rt, agentruntime.Spec{Config: original})
			tt.mismatch(t, rt, a.ID)
			err := rt.Start(bg, a.ID)
			if !agentruntime.IsKind(err, agentruntime.KindDamaged) {
				t.Fatalf("Start = %v, want the agent reported damaged", err)
			}
			for _, want := range []string{rt.dir.Join(configFile(a.ID)), tt.mention, "terraform apply provisions the agent afresh"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Start error %q does not say %q", err, want)
				}
			}
			// The refused start started nothing: the record reads as
			// provisioned, which Get, refusing the damaged agent, cannot say.
			rec, err := rt.load("test", a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if h, _ := health(bg, rec); h != agentruntime.HealthProvisioned {
				t.Errorf("the record after the refused start reads %s, want %s", h, agentruntime.HealthProvisioned)
			}
			if got, err := rt.Get(bg, a.ID); !agentruntime.IsKind(err, agentruntime.KindDamaged) || got.Config != nil {
				t.Errorf("Get = config %q, %v; want no config read back, the agent reported damaged", got.Config, err)
			}
			if _, err := rt.Provision(bg, agentruntime.Spec{Config: original}); err != nil {
				t.Fatal(err)
			}
			if err := rt.Start(bg, a.ID); err != nil {
				t.Fatalf("Start after provisioning again: %v", err)
			}
			waitHealthy(t, rt, a.ID)
		})
	}
}

// TestZombieIsDead makes a real zombie (a child that exited and was not yet
// waited for) and checks it reads as dead.
func TestZombieIsDead(t *testing.T) {
	cmd := exec.CommandContext(bg, "/bin/sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	start, err := startTimeOf(pid)
	if err != nil {
		t.Fatal(err)
	}
	for {
		id, err := readProc(pid)
		if err != nil {
			t.Fatal(err)
		}
		if id.state == 'Z' {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if alive(pid, start) {
		t.Error("a zombie reads as alive")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestPortInUse(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	t.Run("held by another process", func(t *testing.T) {
		l, err := new(net.ListenConfig).Listen(bg, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = l.Close() }()
		port := l.Addr().(*net.TCPAddr).Port
		a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Port Taken", fmt.Sprintf("[server]\nhttp_port = %d\n", port))})
		err = rt.Start(bg, a.ID)
		if !agentruntime.IsKind(err, agentruntime.KindConflict) || !strings.Contains(err.Error(), strconv.Itoa(port)) {
			t.Fatalf("Start on a taken port = %v, want a conflict naming port %d", err, port)
		}
		wantHealth(t, rt, a.ID, agentruntime.HealthProvisioned)
	})
	t.Run("held by another agent", func(t *testing.T) {
		holder := provisionAndStart(t, rt, agentConfig("Port Holder", ""))
		a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Port Seeker", fmt.Sprintf("[server]\nhttp_port = %d\n", holder.Port))})
		err := rt.Start(bg, a.ID)
		if !agentruntime.IsKind(err, agentruntime.KindConflict) || !strings.Contains(err.Error(), strconv.Itoa(holder.Port)) ||
			!strings.Contains(err.Error(), holder.ID) {
			t.Fatalf("Start on an agent's port = %v, want a conflict naming port %d and agent %s", err, holder.Port, holder.ID)
		}
	})
}

// TestEnvScrubbed reads the agent's environment from /proc: only the
// pass-through variables, PORT, HOST, A2A_ADVERTISED_URL, the agent's
// identity and the allowlisted variable it references.
func TestEnvScrubbed(t *testing.T) {
	t.Setenv("A2A_TEST_ALLOWED", "allowed-value")
	t.Setenv("A2A_TEST_UNREFERENCED", "allowed-but-unused")
	t.Setenv("A2A_TEST_DENIED", "must-not-leak")
	rt := newRuntime(t, t.TempDir())
	allow := &agentruntime.EnvAllowlist{Name: "test", Variables: []string{"A2A_TEST_ALLOWED", "A2A_TEST_UNREFERENCED"}}
	cfg := []byte("[agent]\nname = \"Env\"\ndescription = \"uses ${A2A_TEST_ALLOWED}\"\n")
	a := provisionOnly(t, rt, agentruntime.Spec{Config: cfg, Allowlist: allow})
	if !slices.Equal(a.InjectedEnv, []string{"A2A_TEST_ALLOWED"}) {
		t.Errorf("InjectedEnv = %v, want [A2A_TEST_ALLOWED]", a.InjectedEnv)
	}
	if err := rt.Start(bg, a.ID); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, rt, a.ID)
	a, err := rt.Get(bg, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pidOf(t, a)))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range bytes.Split(bytes.TrimRight(raw, "\x00"), []byte{0}) {
		k, v, _ := strings.Cut(string(kv), "=")
		env[k] = v
	}
	if env["A2A_TEST_ALLOWED"] != "allowed-value" || env["HOST"] != "127.0.0.1" || env["PORT"] != strconv.Itoa(a.Port) || env["A2A_ADVERTISED_URL"] != a.Endpoint {
		t.Errorf("agent env lacks the allowed variable, HOST, PORT or A2A_ADVERTISED_URL: %v", env)
	}
	permitted := slices.Concat([]string{"A2A_TEST_ALLOWED", envStateDir, envStateDirID, envAgentID, envConfigSHA}, launch.Variables, passedThrough)
	for k := range env {
		if !slices.Contains(permitted, k) {
			t.Errorf("agent env holds %s, which is neither passed through nor allowlisted and referenced", k)
		}
	}
	for _, f := range []string{recordFile(a.ID), configFile(a.ID), logFile(a.ID)} {
		data, err := rt.dir.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("allowed-value")) {
			t.Errorf("%s holds the value of an injected variable", f)
		}
	}
}

func TestLogAppendedAcrossRestarts(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Logger", "")})
	for range 2 {
		if err := rt.Start(bg, a.ID); err != nil {
			t.Fatal(err)
		}
		waitHealthy(t, rt, a.ID)
		if err := rt.Stop(bg, a.ID); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := rt.Logs(bg, a.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	starts := 0
	for _, l := range lines {
		if strings.Contains(l, "starting agent") {
			starts++
		}
	}
	if starts != 2 {
		t.Errorf("log shows %d starts, want 2 (appended, not truncated):\n%s", starts, strings.Join(lines, "\n"))
	}
	info, err := os.Stat(rt.dir.Join(logFile(a.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("log mode %04o, want 0600", info.Mode().Perm())
	}
}

// TestExitAtOnce runs an executable that fails at start: Start reports a
// spawn failure pointing at the log, which holds the agent's output.
func TestExitAtOnce(t *testing.T) {
	script := filepath.Join(t.TempDir(), "failing-host")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'cannot serve: bad luck' >&2\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	rt, err := New(Options{StateDir: statedirtest.Open(t, t.TempDir()), Executable: script})
	if err != nil {
		t.Fatal(err)
	}
	a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Doomed", "")})
	err = rt.Start(bg, a.ID)
	if !agentruntime.IsKind(err, agentruntime.KindSpawnFailure) || !strings.Contains(err.Error(), rt.dir.Join(logFile(a.ID))) {
		t.Fatalf("Start = %v, want a spawn failure naming the log", err)
	}
	lines, err := rt.Logs(bg, a.ID, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 || lines[len(lines)-1] != "cannot serve: bad luck" {
		t.Errorf("log tail = %q, want the agent's last words", lines)
	}
	wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
}

// TestHostOfAnotherRelease starts agents with a host that is missing, or of
// another release than the provider's: Start refuses before anything runs,
// saying which host and what to use instead, while the agent's other
// operations, which need no host, go on.
func TestHostOfAnotherRelease(t *testing.T) {
	host, err := hostbuild.Path()
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "a2a-agent-host")
	tests := []struct {
		name, exe, version string
		want               []string
	}{
		{"missing host", missing, "1.2.0", []string{missing, "no such file", `a2a-agent-host of release "1.2.0"`, "executable in the local block"}},
		{"host of another release", host, "1.2.0", []string{host, `is of release "test"`, `provider of release "1.2.0"`,
			`a2a-agent-host of release "1.2.0"`, "executable in the local block"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := New(Options{StateDir: statedirtest.Open(t, t.TempDir()), Executable: tt.exe, Version: tt.version})
			if err != nil {
				t.Fatalf("New: %v, want the host checked at start only", err)
			}
			a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Mismatched", "")})
			err = rt.Start(bg, a.ID)
			if !agentruntime.IsKind(err, agentruntime.KindSpawnFailure) {
				t.Fatalf("Start = %v, want a spawn failure", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Start error %q does not say %q", err, want)
				}
			}
			wantHealth(t, rt, a.ID, agentruntime.HealthProvisioned)
		})
	}
}

// TestDetached starts agents from another process that then exits, as a
// provider process does after each terraform command: the agents live on
// in their own sessions, and this process adopts and stops them.
func TestDetached(t *testing.T) {
	dir := t.TempDir()
	starter, err := runStarter(dir, "Detached One", "Detached Two")
	if err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, dir)
	recovery, err := rt.Recover(bg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recovery.IDs, []string{"detached-one", "detached-two"}) {
		t.Fatalf("Recover = %+v, want both agents adopted", recovery)
	}
	for _, id := range recovery.IDs {
		t.Cleanup(func() { _ = rt.Deprovision(bg, id) })
		waitHealthy(t, rt, id)
		a, err := rt.Get(bg, id)
		if err != nil {
			t.Fatal(err)
		}
		pid := pidOf(t, a)
		rec, err := rt.load("test", id)
		if err != nil {
			t.Fatal(err)
		}
		ppid, sid := parentAndSession(t, pid)
		if ppid == starter {
			t.Errorf("agent %s still has the exited starter %d as parent", id, starter)
		}
		if sid != pid {
			t.Errorf("agent %s (pid %d) is in session %d, want its own", id, pid, sid)
		}
		if _, ours := parentAndSession(t, os.Getpid()); ours == sid {
			t.Errorf("agent %s shares this process's session %d", id, sid)
		}
		if err := rt.Stop(bg, id); err != nil {
			t.Fatalf("Stop an adopted agent: %v", err)
		}
		if alive(pid, rec.StartTime) {
			t.Errorf("agent %s (pid %d) survived Stop", id, pid)
		}
		wantHealth(t, rt, id, agentruntime.HealthStopped)
	}
}

// runStarter runs the test binary as a provider process that provisions and
// starts the named agents over dir, and returns its pid once it has exited.
func runStarter(dir string, names ...string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	host, err := hostbuild.Path()
	if err != nil {
		return 0, err
	}
	cmd := exec.CommandContext(bg, exe)
	cmd.Env = append(os.Environ(), roleEnv+"="+roleStart, hostEnv+"="+host, stateEnv+"="+dir, namesEnv+"="+strings.Join(names, ","))
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("starter process: %w\n%s", err, out)
	}
	return cmd.Process.Pid, nil
}

// parentAndSession reads fields 4 (ppid) and 6 (session) of /proc/<pid>/stat.
func parentAndSession(t *testing.T, pid int) (int, int) {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	ppid, _ := strconv.Atoi(fields[1])
	sid, _ := strconv.Atoi(fields[3])
	return ppid, sid
}

// TestConcurrentProvisioners runs two provider processes and two runtimes
// in this process against one state dir at once, ten agents in all:
// every record must be intact, every port distinct, every agent healthy.
func TestConcurrentProvisioners(t *testing.T) {
	dir := t.TempDir()
	var names [10]string
	for i := range names {
		names[i] = fmt.Sprintf("Crowd %02d", i)
	}
	var wg sync.WaitGroup
	for _, group := range [][]string{names[0:3], names[3:6]} {
		wg.Go(func() {
			if _, err := runStarter(dir, group...); err != nil {
				t.Error(err)
			}
		})
	}
	for _, group := range [][]string{names[6:8], names[8:10]} {
		rt := newRuntime(t, dir)
		for _, n := range group {
			wg.Go(func() {
				a, err := rt.Provision(bg, agentruntime.Spec{Config: agentConfig(n, "")})
				if err == nil {
					err = rt.Start(bg, a.ID)
				}
				if err != nil {
					t.Errorf("%s: %v", n, err)
				}
			})
		}
	}
	wg.Wait()
	rt := newRuntime(t, dir)
	list, err := rt.List(bg)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		t.Cleanup(func() { _ = rt.Deprovision(bg, a.ID) })
	}
	if len(list) != len(names) {
		t.Fatalf("List holds %d agents, want %d", len(list), len(names))
	}
	ports := map[int]string{}
	for _, a := range list {
		if other, dup := ports[a.Port]; dup {
			t.Errorf("agents %s and %s share port %d", other, a.ID, a.Port)
		}
		ports[a.Port] = a.ID
		waitHealthy(t, rt, a.ID)
	}
}

// TestDeprovisionLeavesNothing removes agents in each state a destroy may
// find them in, also by two provider processes at once, and checks that
// nothing of them is left anywhere in the state dir, lock files included.
func TestDeprovisionLeavesNothing(t *testing.T) {
	start := func(t *testing.T, rt *Runtime, id string) {
		if err := rt.Start(bg, id); err != nil {
			t.Fatal(err)
		}
		waitHealthy(t, rt, id)
	}
	tests := []struct {
		name     string
		prepare  func(t *testing.T, rt *Runtime, id string)
		removers int
	}{
		{"never started", func(*testing.T, *Runtime, string) {}, 1},
		{"running", start, 1},
		{"stopped", func(t *testing.T, rt *Runtime, id string) {
			start(t, rt, id)
			if err := rt.Stop(bg, id); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"crashed", func(t *testing.T, rt *Runtime, id string) {
			start(t, rt, id)
			a, err := rt.Get(bg, id)
			if err != nil {
				t.Fatal(err)
			}
			killAndWait(t, a.Instance)
		}, 1},
		{"running, removed by two runtimes at once", start, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rt := newRuntime(t, dir)
			a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Leaving", "")})
			tt.prepare(t, rt, a.ID)
			var wg sync.WaitGroup
			for range tt.removers {
				remover := newRuntime(t, dir)
				wg.Go(func() {
					if err := remover.Deprovision(bg, a.ID); err != nil {
						t.Errorf("Deprovision: %v", err)
					}
				})
			}
			wg.Wait()
			left, err := statedirtest.Leftovers(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) > 0 {
				t.Errorf("Deprovision left %s in the state dir", strings.Join(left, ", "))
			}
		})
	}
}

// TestGetSweepsLockOfAgentGone: a deprovision cut short after it removed
// the record but before its lock files went leaves only those files, and
// a refresh then finds the agent gone and drops it from state, so no
// delete runs again. The Get that finds it gone removes them: the agent's
// lock, and its supervisor's, which the deprovision takes to remove.
func TestGetSweepsLockOfAgentGone(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys func(id string) []string
	}{
		{"agent lock", func(string) []string { return nil }},
		{"agent and supervisor locks", func(id string) []string { return []string{supervisorLockKey(id)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rt := newRuntime(t, dir)
			a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Cut Short", "")})
			for _, key := range tc.keys(a.ID) {
				lock, err := rt.dir.LockKey(bg, key)
				if err != nil {
					t.Fatal(err)
				}
				lock.Unlock()
			}
			for _, f := range []string{processFile(a.ID), configFile(a.ID), logFile(a.ID), recordFile(a.ID)} {
				if err := rt.dir.Remove(f); err != nil {
					t.Fatal(err)
				}
			}
			want := 1 + len(tc.keys(a.ID))
			if left, err := statedirtest.Leftovers(dir); err != nil || len(left) != want {
				t.Fatalf("after the cut-short deprovision the state dir holds %v (%v), want the %d lock files alone", left, err, want)
			}
			if _, err := rt.Get(bg, a.ID); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
				t.Fatalf("Get = %v, want not found", err)
			}
			if left, err := statedirtest.Leftovers(dir); err != nil || len(left) > 0 {
				t.Errorf("after Get found the agent gone the state dir holds %v (%v), want nothing", left, err)
			}
		})
	}
}
