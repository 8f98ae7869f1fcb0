package container

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// TestAdvertisedURL checks that the config's advertised_url is what the
// agent advertises and reports, while health is probed where the engine
// publishes it: the advertised host need not resolve from here.
func TestAdvertisedURL(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	tests := []struct {
		name, advertised string
	}{
		{"default", ""},
		{"behind a proxy", "https://agents.invalid/behind-proxy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var extra []string
			if tt.advertised != "" {
				extra = []string{"[server]", `advertised_url = "` + tt.advertised + `"`}
			}
			a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Advertised "+tt.name, extra...)})
			published := rt.opts.endpoint(a.Port)
			want := tt.advertised
			if want == "" {
				want = published
			}
			got, err := rt.Get(testContext(t), a.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, view := range []agentruntime.Agent{a, got} {
				if view.Endpoint != want || view.CardURL != card.CardURL(want) {
					t.Errorf("Endpoint, CardURL = %s, %s; want %s and its card", view.Endpoint, view.CardURL, want)
				}
			}
			if got.Health != agentruntime.HealthHealthy {
				t.Errorf("Health = %s, want healthy (probed at %s)", got.Health, published)
			}
			if body := fetchCard(t, card.CardURL(published)); !strings.Contains(body, `"`+want) {
				t.Errorf("the card served at %s does not advertise %s: %s", published, want, body)
			}
		})
	}
}

func fetchCard(t *testing.T, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("fetch the card: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("fetch the card: %s, %v", resp.Status, err)
	}
	return string(body)
}

// TestRestartLoopFailsStart checks that an agent the engine keeps
// restarting, because the host refuses its config, reads stopped, so that
// waiting for it fails at once with a start failure and not at the end of
// the wait.
func TestRestartLoopFailsStart(t *testing.T) {
	// An empty bearer token would turn authentication off: the host refuses it.
	const empty = "A2A_TEST_EMPTY_TOKEN"
	t.Setenv(empty, "")
	rt := newRuntime(t, testOptions(t, newScope(t)))
	ctx := testContext(t)
	a, err := rt.Provision(ctx, agentruntime.Spec{
		Config:    []byte("[agent]\nname = \"Restart Loop\"\n[auth]\nbearer_token = \"${" + empty + "}\"\n"),
		Allowlist: &agentruntime.EnvAllowlist{Name: "test", Variables: []string{empty}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	// Far longer than the engine takes to restart the agent a few times;
	// the result says whether the wait ended on a failed start or ran out.
	wait, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	if h, err := agentruntime.WaitHealthy(wait, rt, a.ID); !agentruntime.IsKind(err, agentruntime.KindSpawnFailure) {
		t.Fatalf("WaitHealthy of an agent whose host exits at start = %s, %v; want a start failure", h, err)
	}
	logs, err := rt.Logs(ctx, a.ID, 20)
	if err != nil || !strings.Contains(strings.Join(logs, "\n"), empty) {
		t.Errorf("Logs = %q, %v; want the host's error naming %s", logs, err, empty)
	}
}

// TestStopEndsRestartLoop checks that a stop of an agent its engine keeps
// restarting leaves it down for good: no restart comes after the stop,
// though the program exits at once, before most stops can land (Podman
// restarts such a program even after a stop that found it exited).
func TestStopEndsRestartLoop(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	ctx := testContext(t)
	// The SDK's tool, told to serve without saying what, exits at once.
	a, err := rt.Provision(ctx, agentruntime.Spec{Config: broughtConfig(t, "Stopped Loop", []string{"--transport", "jsonrpc"}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	// Stopped as it exits the first time, when its restart is under way.
	// Docker reads a container waiting to restart as running, and
	// restarting.
	for {
		c := inspectAgent(t, rt, a.ID).Container
		if !c.State.Running || c.State.Restarting || c.RestartCount > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the agent that exits at once runs on")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := rt.Stop(ctx, a.ID); err != nil {
		t.Fatalf("Stop of an agent in a restart loop: %v", err)
	}
	stopped := inspectAgent(t, rt, a.ID).Container
	// Longer than the engine takes to restart it, many times over.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		c := inspectAgent(t, rt, a.ID).Container
		if c.State.Running || c.State.StartedAt != stopped.State.StartedAt || c.RestartCount != stopped.RestartCount {
			t.Fatalf("after Stop the engine restarted the agent: restarts %d then %d, started %s then %s",
				stopped.RestartCount, c.RestartCount, stopped.State.StartedAt, c.State.StartedAt)
		}
	}
}

// TestReplaceRefusedKeepsAgent checks that a change whose new container the
// engine refuses to create leaves the running agent as it was.
func TestReplaceRefusedKeepsAgent(t *testing.T) {
	opts := testOptions(t, newScope(t))
	rt := newRuntime(t, opts)
	a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Kept Agent")})
	before := inspectAgent(t, rt, a.ID).Container.ID

	// Engines refuse different things at create: Podman a missing network,
	// Docker a CPU limit above the host's. The change asks for both.
	opts.Network = "a2a-test-absent-" + opts.Scope
	opts.Hardening = &Hardening{CPUs: 1000}
	elsewhere := newRuntime(t, opts)
	ctx := testContext(t)
	if _, err := elsewhere.Provision(ctx, agentruntime.Spec{Config: agentConfig("Kept Agent", `version = "2.0.0"`)}); err == nil {
		t.Error("Provision onto a missing network with 1000 CPUs succeeded, want the engine's refusal")
	}
	if after := inspectAgent(t, rt, a.ID).Container.ID; after != before {
		t.Errorf("the agent's container is %s after the refused change, want %s kept", shortID(after), shortID(before))
	}
	if got, err := rt.Get(ctx, a.ID); got.Health != agentruntime.HealthHealthy {
		t.Errorf("Get after the refused change: health %s, %v; want healthy", got.Health, err)
	}
	res, err := rt.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", labelScope+"="+opts.Scope)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 {
		t.Errorf("the scope holds %d containers after the refused change, want the agent's alone", len(res.Items))
	}
}

// TestStoppedAfterChange checks that an agent replaced for a new config
// reads stopped once stopped if it had run, and provisioned only if it
// never had.
func TestStoppedAfterChange(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	tests := []struct {
		name    string
		started bool
		want    agentruntime.Health
	}{
		{"never started", false, agentruntime.HealthProvisioned},
		{"started before", true, agentruntime.HealthStopped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			name := "Changed " + tt.name
			spec := agentruntime.Spec{Config: agentConfig(name)}
			if tt.started {
				provisionStarted(t, rt, spec)
			} else if _, err := rt.Provision(ctx, spec); err != nil {
				t.Fatal(err)
			}
			changed, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig(name, `version = "2.0.0"`)})
			if err != nil {
				t.Fatal(err)
			}
			if err := rt.Stop(ctx, changed.ID); err != nil {
				t.Fatal(err)
			}
			got, err := rt.Get(ctx, changed.ID)
			if err != nil {
				t.Fatal(err)
			}
			if changed.Health != tt.want || got.Health != tt.want {
				t.Errorf("health after the change = %s, after stop = %s; want %s", changed.Health, got.Health, tt.want)
			}
		})
	}
}

// TestPortOutsideEphemeralRange checks that an allocated port is not one
// the kernel may give an outgoing connection while the agent is stopped.
func TestPortOutsideEphemeralRange(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	low, high := agentruntime.EphemeralPortRange()
	var ports []int
	for _, name := range []string{"Port One", "Port Two", "Port Three"} {
		a, err := rt.Provision(testContext(t), agentruntime.Spec{Config: agentConfig(name)})
		if err != nil {
			t.Fatal(err)
		}
		if a.Port >= low && a.Port <= high {
			t.Errorf("%s got port %d, inside the ephemeral range %d-%d", name, a.Port, low, high)
		}
		if slices.Contains(ports, a.Port) {
			t.Errorf("%s got port %d, already given to another agent", name, a.Port)
		}
		ports = append(ports, a.Port)
	}
}

// TestConfigChangeStopsGracefully: provisioning a running agent with a new
// config replaces its container, and the old one is stopped as Stop stops
// it, so the agent exits on its SIGTERM (exit 0) instead of being killed.
func TestConfigChangeStopsGracefully(t *testing.T) {
	rt := newRuntime(t, testOptions(t, newScope(t)))
	a := provisionStarted(t, rt, agentruntime.Spec{Config: agentConfig("Graceful Change")})
	old := inspectAgent(t, rt, a.ID).Container.ID
	// Filtered on one key only: Podman answers nothing to several at once.
	watch := watchEngine(t, rt.cli, client.Filters{}.Add("container", old))
	if _, err := rt.Provision(testContext(t), agentruntime.Spec{Config: agentConfig("Graceful Change", `version = "2.0.0"`)}); err != nil {
		t.Fatal(err)
	}
	if now := inspectAgent(t, rt, a.ID).Container.ID; now == old {
		t.Fatal("the config change did not replace the container; the test cannot tell how the old one stopped")
	}
	seen := watch.until("exit of the old container "+shortID(old), func(m events.Message) bool {
		return m.Type == events.ContainerEventType && m.Action == events.ActionDie
	})
	died := seen[len(seen)-1]
	if code, err := strconv.Atoi(died.Actor.Attributes["exitCode"]); err != nil || code != 0 {
		t.Errorf("the old container exited with %q, want 0: the agent was killed rather than stopped on its SIGTERM", died.Actor.Attributes["exitCode"])
	}
}

// TestNetworkMissing names a network the engine lacks. Podman refuses the
// container at create, Docker only at start; either way the error is the
// operator's to fix, carries the engine's reason and names the network,
// rather than claiming the agent's container is gone.
func TestNetworkMissing(t *testing.T) {
	opts := testOptions(t, newScope(t))
	opts.Network = "a2a-test-absent-" + opts.Scope
	rt := newRuntime(t, opts)
	ctx := testContext(t)
	a, err := rt.Provision(ctx, agentruntime.Spec{Config: agentConfig("Networkless Agent")})
	if err == nil {
		err = rt.Start(ctx, a.ID)
	}
	// The engine's reason: "network <name> not found" from Docker, "unable
	// to find network with name or ID <name>: network not found" from Podman.
	msg := fmt.Sprint(err)
	if !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) || !strings.Contains(msg, opts.Network) || !strings.Contains(msg, "not found") ||
		strings.Contains(msg, "no container for the agent") {
		t.Errorf("Provision and Start on a missing network = %v, want invalid config with the engine's reason naming %s", err, opts.Network)
	}
}
