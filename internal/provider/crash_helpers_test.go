//go:build linux

package provider

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/local"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir/statedirtest"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/crashpoint"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

// pluginCookie is what Terraform sets in the environment of a provider
// plugin it launches.
const pluginCookie = "TF_PLUGIN_MAGIC_COOKIE"

// servePluginIfLaunched serves the provider when Terraform launched this
// test binary as the provider plugin, as the fault-injection tests make it
// do: a crash must kill a process of its own, not the test.
func servePluginIfLaunched() {
	if os.Getenv(pluginCookie) == "" {
		return
	}
	host := os.Getenv(hostEnv)
	hostExecutable = func() (string, error) { return host, nil }
	err := providerserver.Serve(context.Background(), New(hostbuild.Release), providerserver.ServeOpts{Address: Address})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// crashWorld is a Terraform working dir whose provider is this test binary,
// launched by Terraform as a plugin process of its own, with a state dir of
// its own.
type crashWorld struct {
	t        *testing.T
	work     string
	stateDir string
	env      []string
	// adapter is what the world's agents run on.
	adapter crashAdapter
	// suffix makes the agents' names this world's own, as containers on a
	// shared engine must be.
	suffix string
}

// crashAdapter is an adapter as a fault-injection world sees it: the
// provider block's adapter block, and where to look for what the world's
// agents run as and leave behind.
type crashAdapter interface {
	// block is the provider block's adapter block; empty selects the
	// local adapter.
	block() string
	// attributes is what each agent's resource block holds besides its
	// config.
	attributes() string
	// found returns, by agent id, the instances that each of the world's
	// agents with anything on the adapter runs as, named as the instance
	// attribute names them: none for an agent that has objects but does
	// not run.
	found(w *crashWorld) map[string][]string
	// left describes what of the world's agents is left on the adapter,
	// once they are all destroyed.
	left(w *crashWorld) []string
	// remove removes whatever of the world's agents a failed test left.
	remove(w *crashWorld)
}

// newCrashWorld makes a world whose agents run on the adapter.
func newCrashWorld(t *testing.T, adapter crashAdapter) *crashWorld {
	t.Helper()
	root := t.TempDir()
	suffix := make([]byte, 3)
	_, _ = rand.Read(suffix)
	w := &crashWorld{t: t, work: filepath.Join(root, "work"), stateDir: filepath.Join(root, "state"), adapter: adapter, suffix: hex.EncodeToString(suffix)}
	if err := os.MkdirAll(w.work, 0o700); err != nil {
		t.Fatal(err)
	}
	w.env = devProvider(t, root)
	t.Cleanup(func() { w.adapter.remove(w) })
	return w
}

// declare writes the configuration: the provider block and one agent per
// name, each with the description given.
func (w *crashWorld) declare(description string, names ...string) {
	w.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "terraform {\n  required_providers {\n    a2a = { source = \"a2a-terraform/a2a\" }\n  }\n}\n")
	fmt.Fprintf(&b, "provider \"a2a\" {\n  state_dir = %q\n%s}\n", w.stateDir, w.adapter.block())
	for _, n := range names {
		fmt.Fprintf(&b, "resource \"a2a_agent\" %q {\n  config = <<-EOT\n%s\n  EOT\n%s}\n", n, indent(echoConfig(w.agentName(n), description)), w.adapter.attributes())
	}
	if err := os.WriteFile(filepath.Join(w.work, "main.tf"), []byte(b.String()), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// agentName is the name of the world's agent declared as resource n.
func (w *crashWorld) agentName(n string) string { return "Crash " + n + " " + w.suffix }

// agentID is the id of the world's agent declared as resource n.
func (w *crashWorld) agentID(n string) string { return agentconfig.Slug(w.agentName(n)) }

// terraform runs a terraform command in its own process group, with extra
// environment, and returns its output and exit code.
func (w *crashWorld) terraform(extraEnv []string, args ...string) (string, int) {
	w.t.Helper()
	return terraformIn(w.t, append(slices.Clone(w.env), extraEnv...), w.work, args...)
}

func (w *crashWorld) command(extraEnv []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	return terraformCommand(w.t, append(slices.Clone(w.env), extraEnv...), w.work, args...)
}

// mustSucceed runs a terraform command that must succeed.
func (w *crashWorld) mustSucceed(args ...string) string {
	w.t.Helper()
	out, code := w.terraform(nil, args...)
	if code != 0 {
		w.t.Fatalf("terraform %s failed (exit %d):\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// crashAt runs a terraform command with the provider set to die at point;
// it reports whether the provider died there (the command failed).
func (w *crashWorld) crashAt(point string, args ...string) bool {
	w.t.Helper()
	if !crashpoint.Enabled {
		w.t.Fatal("this test binary has no crash points: build it with -tags crashpoint, as make test does")
	}
	out, code := w.terraform([]string{crashpoint.EnvVar + "=" + point}, args...)
	if code == 0 {
		return false
	}
	if !strings.Contains(out, "plugin") && !strings.Contains(out, "provider") {
		w.t.Fatalf("terraform %s failed, but not for the provider's crash:\n%s", strings.Join(args, " "), out)
	}
	return true
}

// converge applies once, then proves the plan empty and every agent
// process accounted for by exactly one resource in state.
func (w *crashWorld) converge() string {
	w.t.Helper()
	out := w.mustSucceed("apply", "-auto-approve", "-input=false")
	if out, code := w.terraform(nil, "plan", "-detailed-exitcode", "-input=false"); code != 0 {
		w.t.Fatalf("the plan after one apply is not empty (exit %d):\n%s", code, out)
	}
	w.checkInstancesMatchState()
	return out
}

// stateAgents returns, for each agent in Terraform state, its id and its
// instance (the pid), read through terraform show.
func (w *crashWorld) stateAgents() map[string]string {
	w.t.Helper()
	out := w.mustSucceed("show", "-json")
	var shown struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Type   string         `json:"type"`
					Values map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		w.t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	agents := map[string]string{}
	for _, r := range shown.Values.RootModule.Resources {
		if r.Type != "a2a_agent" {
			continue
		}
		id, _ := r.Values["id"].(string)
		instance, _ := r.Values["instance"].(string)
		if _, dup := agents[id]; dup {
			w.t.Fatalf("agent %q is in state twice", id)
		}
		agents[id] = instance
	}
	return agents
}

// localAgents are agents run as processes by the local adapter.
type localAgents struct{}

func (localAgents) block() string { return "" }

func (localAgents) attributes() string { return "" }

func (localAgents) found(w *crashWorld) map[string][]string { return w.processes() }

// left waits a moment for the processes of a destroy to go.
func (localAgents) left(w *crashWorld) []string {
	for deadline := time.Now().Add(5 * time.Second); len(w.everything()) > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	var left []string
	for id, pids := range w.everything() {
		left = append(left, fmt.Sprintf("agent %s runs as pids %v", id, pids))
	}
	return left
}

func (localAgents) remove(w *crashWorld) {
	if _, err := os.Stat(filepath.Join(w.stateDir, ".id")); err != nil {
		return
	}
	for _, pids := range w.everything() {
		for _, pid := range pids {
			if n, err := strconv.Atoi(pid); err == nil {
				_ = syscall.Kill(-n, syscall.SIGKILL)
			}
		}
	}
}

// processes returns the agent processes of the world's state dir, by the
// identity they carry, as agent id → pids; their supervisors, which carry
// it too, are left out.
func (w *crashWorld) processes() map[string][]string { return w.scan(false) }

// everything returns every process of the world's agents, supervisors
// included, as agent id → pids.
func (w *crashWorld) everything() map[string][]string { return w.scan(true) }

// scan returns the processes of the world's agents, with their
// supervisors when supervisors is set, as agent id → pids.
func (w *crashWorld) scan(supervisors bool) map[string][]string {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.stateDir, ".id"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no local runtime ever opened the state dir
	}
	if err != nil {
		w.t.Fatal(err)
	}
	dirID := strings.TrimSpace(string(data))
	out := map[string][]string{}
	for _, p := range local.ScanProcesses() {
		if p.StateDirID == dirID && (supervisors || !p.Supervisor) {
			out[p.AgentID] = append(out[p.AgentID], strconv.Itoa(p.PID))
		}
	}
	return out
}

// containerAgents are agents run as containers by the container adapter.
type containerAgents struct{}

func (containerAgents) block() string { return "  container {\n    stop_grace_period = \"3s\"\n  }\n" }

func (containerAgents) attributes() string { return "" }

// found returns the running containers of the world's agents on the
// engine, as agent id → container ids.
func (containerAgents) found(w *crashWorld) map[string][]string {
	w.t.Helper()
	out := map[string][]string{}
	for _, n := range crashAgents {
		id := w.agentID(n)
		ids, err := docker("ps", "-q", "--no-trunc", "--filter", "label="+managedByLabel, "--filter", "label="+agentIDLabel+"="+id)
		if err != nil {
			w.t.Fatal(err)
		}
		if f := strings.Fields(ids); len(f) > 0 {
			out[id] = f
		}
	}
	return out
}

// left returns every container of the world's agents, running or not.
func (containerAgents) left(w *crashWorld) []string {
	w.t.Helper()
	var left []string
	for _, n := range crashAgents {
		ids, err := agentContainers(w.agentID(n))
		if err != nil {
			w.t.Fatal(err)
		}
		left = append(left, ids...)
	}
	return left
}

func (c containerAgents) remove(w *crashWorld) {
	for _, id := range c.left(w) {
		_, _ = docker("rm", "-f", id)
	}
}

// checkInstancesMatchState proves that every agent instance of the world
// is the instance of exactly one resource in state, and every agent in
// state runs as its instance.
func (w *crashWorld) checkInstancesMatchState() {
	w.t.Helper()
	agents := w.stateAgents()
	found := w.adapter.found(w)
	for id, instances := range found {
		instance, tracked := agents[id]
		switch {
		case !tracked:
			w.t.Errorf("agent %q is there (instances %v) but no resource in state tracks it", id, instances)
		case len(instances) != 1:
			w.t.Errorf("agent %q runs %d times (%v)", id, len(instances), instances)
		case instances[0] != instance:
			w.t.Errorf("agent %q runs as %s, but state says instance %q", id, instances[0], instance)
		}
	}
	for id := range agents {
		if _, there := found[id]; !there {
			w.t.Errorf("agent %q is in state but does not run", id)
		}
	}
}

// destroyed runs destroy and proves nothing of the world's agents runs or
// remains, on the adapter or in the state dir.
func (w *crashWorld) destroyed() {
	w.t.Helper()
	w.mustSucceed("destroy", "-auto-approve", "-input=false")
	w.checkNothingLeft()
}

func (w *crashWorld) checkNothingLeft() {
	w.t.Helper()
	if left := w.adapter.left(w); len(left) > 0 {
		w.t.Errorf("destroy left agents' instances or objects behind: %v", left)
	}
	left, err := statedirtest.Leftovers(w.stateDir)
	if err != nil {
		w.t.Fatal(err)
	}
	// The lock serialising base image builds belongs to the state dir.
	left = slices.DeleteFunc(left, func(f string) bool { return filepath.Base(f) == "container-image-build.lock" })
	if len(left) > 0 {
		w.t.Errorf("destroy left files behind in the state dir: %s", strings.Join(left, ", "))
	}
}
