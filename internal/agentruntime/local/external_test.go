//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/a2acli"
)

// broughtCommandConfig is an agent run from command, the TOML array given.
func broughtCommandConfig(name, command, extra string) []byte {
	return fmt.Appendf(nil, "[agent]\nname = %q\n[runtime]\ncommand = %s\n%s", name, command, extra)
}

// sdkAgent is the config of the SDK's a2a tool serving an echo agent on a
// port chosen now, with a card naming that port; args follow `serve`.
func sdkAgent(t *testing.T, name, binding, protocol string, args string) []byte {
	t.Helper()
	port := a2acli.FreePort(t)
	cardFile := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(cardFile, a2acli.Card(name, fmt.Sprintf("http://127.0.0.1:%d", port), binding, protocol), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf(`[%q, "serve", "--host", "${HOST}", "--port", "${PORT}", "--card", %q, %s]`, a2acli.Binary(t), cardFile, args)
	return broughtCommandConfig(name, cmd, fmt.Sprintf("port = %d\n", port))
}

// TestBroughtAgents runs the official SDK's a2a tool as agents in every
// shape it serves, each healthy with its own card.
func TestBroughtAgents(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	for _, tc := range []struct {
		name, binding, protocol, args string
	}{
		{"sdk jsonrpc", a2acli.JSONRPC, "1.0", `"--echo", "--transport", "jsonrpc"`},
		{"sdk rest", a2acli.HTTPJSON, "1.0", `"--echo", "--transport", "rest"`},
		{"sdk compat", a2acli.JSONRPC, "0.3", `"--echo", "--transport", "jsonrpc", "--protocol", "0.3", "--card-compat"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := provisionAndStart(t, rt, sdkAgent(t, tc.name, tc.binding, tc.protocol, tc.args))
			if a.Card == nil {
				t.Fatalf("healthy agent without a card: %+v", a)
			}
			iface := a.Card.Card.SupportedInterfaces[0]
			if iface.URL != a.Endpoint || string(iface.ProtocolBinding) != tc.binding || string(iface.ProtocolVersion) != tc.protocol {
				t.Errorf("card interface %s %s %s, want %s %s %s", iface.URL, iface.ProtocolBinding, iface.ProtocolVersion, a.Endpoint, tc.binding, tc.protocol)
			}
		})
	}
}

// TestBroughtAgentEnvironment checks what a brought agent is given: its
// placeholders filled in, its own variables, its working directory.
func TestBroughtAgentEnvironment(t *testing.T) {
	work := t.TempDir()
	script := filepath.Join(work, "report.sh")
	// The script reports what it received as the agent's answer; the
	// agent's log gets the same from the runtime's line below.
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$PORT $HOST $A2A_ADVERTISED_URL $GREETING $(pwd)\" >&2\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, t.TempDir())
	cfg := sdkAgent(t, "env agent", a2acli.JSONRPC, "1.0", `"--exec", "./report.sh; echo ${PORT}", "--transport", "jsonrpc"`)
	cfg = fmt.Appendf(cfg, "working_dir = %q\n[runtime.env]\nGREETING = \"hello on ${PORT}\"\n", work)
	a := provisionAndStart(t, rt, cfg)
	if a.Card == nil || a.Card.Card.SupportedInterfaces[0].URL != a.Endpoint {
		t.Fatalf("agent card %+v does not advertise %s", a.Card, a.Endpoint)
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pidOf(t, a)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("PORT=%d", a.Port), "HOST=127.0.0.1", "A2A_ADVERTISED_URL=" + a.Endpoint,
		fmt.Sprintf("GREETING=hello on %d", a.Port),
	} {
		if !strings.Contains(string(env), want+"\x00") {
			t.Errorf("agent environment lacks %s", want)
		}
	}
	// Nothing tells it where the state dir is, which it has no use for.
	if strings.Contains(string(env), rt.dir.Path()) || strings.Contains(string(env), envStateDir+"=") {
		t.Errorf("agent environment names the state dir %s", rt.dir.Path())
	}
	if !strings.Contains(string(env), envStateDirDigest+"="+pathDigest(rt.dir.Path())+"\x00") {
		t.Errorf("agent environment lacks the digest of its state dir's path")
	}
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pidOf(t, a)))
	if err != nil || cwd != work {
		t.Errorf("agent working directory %q (%v), want %s", cwd, err, work)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pidOf(t, a)))
	if err != nil || !strings.Contains(string(cmdline), fmt.Sprintf("./report.sh; echo %d\x00", a.Port)) {
		t.Errorf("agent command line %q (%v) lacks the filled-in --exec argument", cmdline, err)
	}
	if strings.Contains(string(cmdline), rt.dir.Path()) {
		t.Errorf("agent command line %q names the state dir", cmdline)
	}
}

// TestBroughtAgentFailures covers the programs that never become agents:
// each fails with an error that says why, and leaves nothing running.
func TestBroughtAgentFailures(t *testing.T) {
	bin := a2acli.Binary(t)
	work := t.TempDir()
	invalid := filepath.Join(work, "invalid-card.json")
	if err := os.WriteFile(invalid, []byte(`{"name": "no interfaces", "version": "1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, t.TempDir())
	t.Run("missing executable", func(t *testing.T) {
		_, err := rt.Provision(bg, agentruntime.Spec{Config: broughtCommandConfig("missing", `["./no-such-agent"]`, fmt.Sprintf("working_dir = %q\n", work))})
		if !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) || !strings.Contains(err.Error(), "no-such-agent") {
			t.Fatalf("Provision of a missing program = %v, want invalid config naming it", err)
		}
		if _, err := rt.Get(bg, "missing"); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
			t.Errorf("a refused agent is recorded: Get = %v", err)
		}
	})
	t.Run("exits at once", func(t *testing.T) {
		a := provisionOnly(t, rt, agentruntime.Spec{Config: broughtCommandConfig("quitter", fmt.Sprintf(`[%q, "serve"]`, bin), "")})
		err := rt.Start(bg, a.ID)
		if !agentruntime.IsKind(err, agentruntime.KindSpawnFailure) {
			t.Fatalf("Start of a program that exits at once = %v, want a spawn failure", err)
		}
		logs, _ := rt.Logs(bg, a.ID, 5)
		if !strings.Contains(strings.Join(logs, "\n"), "specify --echo") {
			t.Errorf("log tail %q lacks the program's own complaint", logs)
		}
		wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
	})
	t.Run("invalid card", func(t *testing.T) {
		cmd := fmt.Sprintf(`[%q, "serve", "--echo", "--port", "${PORT}", "--card", %q]`, bin, invalid)
		a := provisionOnly(t, rt, agentruntime.Spec{Config: broughtCommandConfig("invalid card", cmd, "")})
		if err := rt.Start(bg, a.ID); err != nil {
			t.Fatalf("Start: %v", err)
		}
		ctx, cancel := context.WithTimeout(bg, 30*time.Second)
		defer cancel()
		h, err := agentruntime.WaitHealthy(ctx, rt, a.ID)
		var invalid *card.ValidationError
		if h != agentruntime.HealthUnhealthy || !errors.As(err, &invalid) || !strings.Contains(err.Error(), "$.supportedInterfaces") {
			t.Fatalf("WaitHealthy of an agent serving an invalid card = %s, %v; want unhealthy naming $.supportedInterfaces", h, err)
		}
	})
}
