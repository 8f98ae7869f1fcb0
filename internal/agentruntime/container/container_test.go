package container

import (
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
)

func TestHardening(t *testing.T) {
	needEngine(t)
	// User "" would keep the image's own user, which is DefaultUser in the
	// base image, so "off" names another user to show it is passed through.
	off := Hardening{User: "1000:1000"}
	limited := DefaultHardening()
	limited.MemoryMB, limited.CPUs = 64, 0.5
	tests := []struct {
		name      string
		hardening *Hardening
		readOnly  bool
		confined  bool // no capabilities and no new privileges
		user      string
		pids      int64 // 0: unlimited
		memory    int64
		nanoCPUs  int64
	}{
		{"defaults", nil, true, true, DefaultUser, DefaultPidsLimit, 0, 0},
		{"limits", &limited, true, true, DefaultUser, DefaultPidsLimit, 64 << 20, 5e8},
		{"all off", &off, false, false, "1000:1000", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions(t, newScope(t))
			opts.Hardening = tt.hardening
			rt := newRuntime(t, opts)
			a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Hardening " + tt.name)})
			c := inspectAgent(t, rt, a.ID).Container
			h := c.HostConfig
			if h.ReadonlyRootfs != tt.readOnly {
				t.Errorf("ReadonlyRootfs = %v, want %v", h.ReadonlyRootfs, tt.readOnly)
			}
			if _, tmp := h.Tmpfs["/tmp"]; tmp != tt.readOnly {
				t.Errorf("tmpfs on /tmp = %v, want %v (with a read-only root)", tmp, tt.readOnly)
			}
			status := processStatus(t, c.State.Pid)
			if noCaps := status["CapBnd"] == "0000000000000000"; noCaps != tt.confined {
				t.Errorf("capability bounding set %s, want all dropped = %v", status["CapBnd"], tt.confined)
			}
			if noNewPrivs := status["NoNewPrivs"] == "1"; noNewPrivs != tt.confined {
				t.Errorf("NoNewPrivs %s, want set = %v", status["NoNewPrivs"], tt.confined)
			}
			if c.Config.User != tt.user {
				t.Errorf("User = %q, want %q", c.Config.User, tt.user)
			}
			// The API reads nil, 0 and -1 as unlimited; engines report any of them.
			got := int64(0)
			if h.PidsLimit != nil && *h.PidsLimit > 0 {
				got = *h.PidsLimit
			}
			if got != tt.pids {
				t.Errorf("PidsLimit = %d, want %d (0: unlimited)", got, tt.pids)
			}
			if h.Memory != tt.memory || h.NanoCPUs != tt.nanoCPUs {
				t.Errorf("Memory, NanoCPUs = %d, %d, want %d, %d", h.Memory, h.NanoCPUs, tt.memory, tt.nanoCPUs)
			}
		})
	}
}

// processStatus reads the kernel's status of the agent's main process. The
// engine's own record of capabilities and no-new-privileges differs between
// engines (Podman lists each dropped capability), the kernel's does not. The
// engine runs on this machine in the tests, so its process ids are ours.
func processStatus(t *testing.T, pid int) map[string]string {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("read the status of the agent's process %d (the engine must run on this machine): %v", pid, err)
	}
	status := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok {
			status[name] = strings.TrimSpace(value)
		}
	}
	return status
}

// TestEnvironment checks that only allowlisted variables and the adapter's
// own enter a container, and that a changed value recreates it at start.
func TestEnvironment(t *testing.T) {
	t.Setenv("A2A_TEST_CANARY", "must-not-leak")
	t.Setenv("A2A_TEST_ALLOWED", "first")
	rt := newRuntime(t, testOptions(t, newScope(t)))
	spec := agentruntime.Spec{
		Config:    agentConfig("Env Agent", `# greets ${A2A_TEST_ALLOWED}`),
		Allowlist: &agentruntime.EnvAllowlist{Name: "test", Variables: []string{"A2A_TEST_ALLOWED", "A2A_TEST_CANARY_UNUSED"}},
	}
	a := provisionStarted(t, rt, spec)
	if !slices.Equal(a.InjectedEnv, []string{"A2A_TEST_ALLOWED"}) {
		t.Errorf("InjectedEnv = %v, want [A2A_TEST_ALLOWED]", a.InjectedEnv)
	}
	first := inspectAgent(t, rt, a.ID).Container
	wantNames := []string{launch.ConfigEnvVar, "PORT", "HOST", "A2A_ADVERTISED_URL", "A2A_TEST_ALLOWED"}
	// Engines add their own: Docker PATH, Podman also HOSTNAME, TERM and container.
	engineNames := []string{"PATH", "HOSTNAME", "TERM", "container"}
	for _, kv := range first.Config.Env {
		name, value, _ := strings.Cut(kv, "=")
		if strings.Contains(value, "must-not-leak") || !slices.Contains(append(wantNames, engineNames...), name) {
			t.Errorf("container holds %s, which is neither allowlisted nor the adapter's", name)
		}
	}
	for _, name := range wantNames {
		if _, ok := envValue(first.Config.Env, name); !ok {
			t.Errorf("container lacks %s", name)
		}
	}
	for name, want := range map[string]string{"A2A_TEST_ALLOWED": "first", "PORT": "8080", "HOST": "0.0.0.0", "A2A_ADVERTISED_URL": a.Endpoint} {
		if v, _ := envValue(first.Config.Env, name); v != want {
			t.Errorf("%s = %q, want %q", name, v, want)
		}
	}
	labels := first.Config.Labels
	for key, want := range map[string]string{
		labelManagedBy: managedByValue, labelAgentID: a.ID, labelConfigSHA: a.ConfigSHA256,
		labelInjectedEnv: "A2A_TEST_ALLOWED", labelScope: rt.opts.Scope,
	} {
		if labels[key] != want {
			t.Errorf("label %s = %q, want %q", key, labels[key], want)
		}
	}

	ctx := testContext(t)
	if err := rt.Stop(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2A_TEST_ALLOWED", "second")
	if err := rt.Start(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	second := inspectAgent(t, rt, a.ID).Container
	if v, _ := envValue(second.Config.Env, "A2A_TEST_ALLOWED"); v != "second" {
		t.Errorf("after a start with a new value, A2A_TEST_ALLOWED = %q, want second", v)
	}
	if second.ID == first.ID {
		t.Error("the container was not recreated for the new value")
	}
	if second.Config.Labels[labelPort] != labels[labelPort] {
		t.Errorf("port changed from %s to %s on recreate", labels[labelPort], second.Config.Labels[labelPort])
	}
}

func TestProvisionUnchangedKeepsContainer(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	spec := agentruntime.Spec{Config: agentConfig("Steady Agent")}
	a := provisionStarted(t, rt, spec)
	before := inspectAgent(t, rt, a.ID).Container.ID
	again, err := rt.Provision(testContext(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	if after := inspectAgent(t, rt, a.ID).Container.ID; after != before || again.Health != agentruntime.HealthHealthy {
		t.Errorf("Provision of an unchanged config: container %s → %s, health %s; want the running one kept", before, after, again.Health)
	}
}

func TestRemovedOutOfBand(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Removed Agent")})
	docker(t, "rm", "-f", rt.containerName(a.ID))
	ctx := testContext(t)
	// The agent's record outlives its container: a read reports the agent
	// damaged, so that it stays tracked and apply creates the container
	// again; what needs the container finds none.
	if _, err := rt.Get(ctx, a.ID); !agentruntime.IsKind(err, agentruntime.KindDamaged) || !strings.Contains(err.Error(), "terraform apply creates it again") {
		t.Errorf("Get after docker rm = %v, want the agent damaged, telling the operator that apply creates it again", err)
	}
	for name, op := range map[string]func() error{
		"Start": func() error { return rt.Start(ctx, a.ID) },
		"Stop":  func() error { return rt.Stop(ctx, a.ID) },
		"Logs":  func() error { _, err := rt.Logs(ctx, a.ID, 5); return err },
	} {
		if err := op(); !agentruntime.IsKind(err, agentruntime.KindNotFound) || !strings.Contains(err.Error(), "apply again") {
			t.Errorf("%s after docker rm = %v, want not found telling the operator to apply again", name, err)
		}
	}
	list, err := rt.List(ctx)
	if err != nil || len(list) != 0 {
		t.Errorf("List after docker rm = %v, %v; want empty", list, err)
	}
	if err := rt.Deprovision(ctx, a.ID); err != nil {
		t.Errorf("Deprovision after docker rm = %v, want success", err)
	}
}

func TestStoppedOutOfBand(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Stopped Agent")})
	docker(t, "stop", rt.containerName(a.ID))
	got, err := rt.Get(testContext(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Running || got.Health != agentruntime.HealthStopped || got.Instance != "" {
		t.Errorf("Get after docker stop = %+v, want stopped", got)
	}
	provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Stopped Agent")})
}

func TestRestartPolicy(t *testing.T) {
	tests := []struct{ option, want string }{
		{"", "unless-stopped"},
		{"always", "always"},
		{"no", "no"},
		{"on-failure", "on-failure"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			opts := testOptions(t, newScope(t))
			opts.RestartPolicy = tt.option
			rt := newRuntime(t, opts)
			a, err := rt.Provision(testContext(t), agentruntime.Spec{Config: agentConfig("Restart " + tt.want)})
			if err != nil {
				t.Fatal(err)
			}
			if got := inspectAgent(t, rt, a.ID).Container.HostConfig.RestartPolicy.Name; string(got) != tt.want {
				t.Errorf("restart policy = %q, want %q", got, tt.want)
			}
		})
	}
	_, err := New(testContext(t), Options{RestartPolicy: "sometimes"})
	if !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) || !strings.Contains(err.Error(), "sometimes") {
		t.Errorf("New with restart policy sometimes = %v, want invalid config naming it", err)
	}
}

func TestPortTaken(t *testing.T) {
	ctx := testContext(t)
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	port := l.Addr().(*net.TCPAddr).Port
	rt := newRuntime(t, testOptions(t, newScope(t)))
	a, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig("Busy Port", "[server]", "http_port = "+strconv.Itoa(port))})
	if err != nil {
		t.Fatal(err)
	}
	if a.Port != port {
		t.Errorf("Port = %d, want the configured %d", a.Port, port)
	}
	err = rt.Start(ctx, a.ID)
	if !agentruntime.IsKind(err, agentruntime.KindConflict) || !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Errorf("Start on a taken port = %v, want conflict naming port %d", err, port)
	}
}

func TestEngineUnreachable(t *testing.T) {
	socket := "unix://" + t.TempDir() + "/absent.sock"
	dir := statedirtest.Open(t, t.TempDir())
	tests := []struct {
		name, option, env, mention string
	}{
		{"option", socket, "", "provider's container host"},
		{"DOCKER_HOST", "", socket, "DOCKER_HOST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DOCKER_HOST", tt.env)
			_, err := New(testContext(t), Options{Host: tt.option, StateDir: dir})
			if !agentruntime.IsKind(err, agentruntime.KindBackend) || !strings.Contains(err.Error(), socket) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("New against %s = %v, want a backend error naming the host and %q", socket, err, tt.mention)
			}
		})
	}
	var lc net.ListenConfig
	l, err := lc.Listen(testContext(t), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedTCP := "tcp://" + l.Addr().String()
	_ = l.Close()
	if _, err := New(testContext(t), Options{Host: closedTCP, StateDir: dir}); !agentruntime.IsKind(err, agentruntime.KindBackend) || !strings.Contains(err.Error(), closedTCP) {
		t.Errorf("New against closed %s = %v, want a backend error naming it", closedTCP, err)
	}
	invalid := []struct {
		name    string
		opts    Options
		mention string
	}{
		{"scheme", Options{Host: "ftp://engine", StateDir: dir}, "ftp"},
		{"tls files", Options{Host: closedTCP, TLSCACert: t.TempDir() + "/absent-ca.pem", TLSVerify: true, StateDir: dir}, "tls_ca_cert"},
	}
	for _, tt := range invalid {
		if _, err := New(testContext(t), tt.opts); !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("New with a bad %s = %v, want invalid config mentioning %q", tt.name, err, tt.mention)
		}
	}
}

// TestRelayThroughCLI drives the ssh:// transport's relay (`docker system
// dial-stdio`) against the local engine, which needs no ssh server.
func TestRelayThroughCLI(t *testing.T) {
	needEngine(t)
	host := testEngineHost()
	docker(t, "version", "--format", "{{.Client.Version}}")
	relayed, err := client.New(relayOptions(host)...)
	if err != nil {
		t.Fatal(err)
	}
	rt := &Runtime{cli: relayed, engine: engineAddress{Host: host, Source: "test"}, opts: Options{Scope: newScope(t)}}
	defer func() { _ = rt.Close() }()
	if _, err := rt.Recover(testContext(t)); err != nil {
		t.Fatalf("Recover over the CLI relay: %v", err)
	}
}

// TestStopWakesSuspendedAgent suspends the agent's process, as a hung
// agent would be; Stop must still end it with the SIGTERM it handles (exit
// 0) rather than leave it to the engine's SIGKILL after the grace period
// (exit 137).
func TestStopWakesSuspendedAgent(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Suspended Agent")})
	docker(t, "kill", "--signal", "SIGSTOP", rt.containerName(a.ID))
	if err := rt.Stop(testContext(t), a.ID); err != nil {
		t.Fatal(err)
	}
	state := inspectAgent(t, rt, a.ID).Container.State
	if state.Running || state.ExitCode != 0 {
		t.Errorf("after Stop of a suspended agent: running %v, exit code %d; want it stopped by its SIGTERM (exit 0)", state.Running, state.ExitCode)
	}
}
