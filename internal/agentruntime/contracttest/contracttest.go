// Package contracttest is the behaviour every runtime adapter must show,
// written once against the port. An adapter's tests call Run with a
// Harness; nothing in the suite knows which adapter it drives.
package contracttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// Harness is what an adapter provides to be put through the suite.
type Harness struct {
	// New returns a runtime over the harness's backing store (state dir,
	// engine). Called more than once in a test it must return a fresh
	// runtime over the same store, as a new provider process would get.
	New func(t *testing.T) agentruntime.Runtime
	// Config returns a valid config for an agent named name that the
	// adapter can run. Names differ between cases, so agents never clash.
	Config func(name string) []byte
	// Durable says the runtime finds its agents again from a fresh runtime
	// (Recover adopts them); otherwise Recover must answer Ephemeral.
	Durable bool
	// Crash, if set, kills the agent out of band (as a crash would) and
	// returns once the agent's process or container is dead; whatever
	// would restart it (the local adapter's supervisor) dies with it, or,
	// for an engine, does not restart what it was told to kill.
	Crash func(t *testing.T, id string)
	// Kill, if set, kills the agent's process alone out of band (kill -9),
	// as a crash of the agent would, and returns once it is dead: what
	// supervises it (the local adapter's supervisor, an engine, a kubelet)
	// must restart it under the restart policy, counted in
	// Agent.Restarts, which a start by the runtime sets back to zero. An
	// adapter whose harness cannot kill the agent alone leaves it nil and
	// documents why.
	Kill func(t *testing.T, id string)
	// KillSupervisor, if set, kills what supervises the agent (kill -9)
	// but not the agent: the next runtime's Recover must adopt the agent
	// as it runs, start no second copy, and supervise it again. Adapters
	// whose supervisor is an engine or a cluster leave it nil.
	KillSupervisor func(t *testing.T, id string)
	// Unsupported, if set, checks what the adapter refuses as
	// KindUnsupported (for instance a local agent naming an image).
	Unsupported func(t *testing.T, rt agentruntime.Runtime)
	// Brought, if set, returns the config of an agent the operator brings:
	// the official A2A Go SDK's a2a tool run as `a2a serve` with serveArgs,
	// listening where the runtime says (--host ${HOST} --port ${PORT}) and
	// serving card as its card, or with a nil card the one the tool derives
	// from its flags. Adapters that run only the built-in host leave it nil.
	Brought func(t *testing.T, name string, serveArgs []string, card []byte) []byte
	// NoAgentOutput says the adapter runs no agent host, so its logs hold
	// only its own lines; otherwise they must hold the agent's output.
	NoAgentOutput bool
	// FetchCard, if set, fetches the card of agent a the way a client of
	// the adapter's agents reaches it from the tests' machine, for an
	// adapter whose advertised URL names an address only its agents'
	// network resolves (a cluster's Service). Unset: a GET of a.CardURL.
	FetchCard func(ctx context.Context, a agentruntime.Agent) ([]byte, error)
	// Reach, if set, returns the base URL (http://host:port) at which the
	// tests' machine reaches agent a's port over any protocol, gRPC too,
	// for as long as the test runs. Unset: where a.Endpoint says.
	Reach func(t *testing.T, a agentruntime.Agent) string
	// OtherSettings, required of a runtime that is an
	// agentruntime.SettingsRunner, returns a runtime over the same store
	// whose provider settings differ from New's in one that reaches the
	// agents' objects.
	OtherSettings func(t *testing.T) agentruntime.Runtime
}

// healthyWithin bounds how long an agent may take to answer its card.
const healthyWithin = 30 * time.Second

type contractCase struct {
	name string
	run  func(t *testing.T, h Harness)
}

// Run puts the adapter through every case of the contract.
func Run(t *testing.T, h Harness) {
	cases := []contractCase{
		{"lifecycle", testLifecycle},
		{"stop is idempotent", testStopIdempotent},
		{"start twice", testStartTwice},
		{"unknown id", testUnknownID},
		{"invalid config", testInvalidConfig},
		{"disallowed env", testDisallowedEnv},
		{"check with the allowlist pending", testPendingAllowlist},
		{"check describes the agent provision records", testCheckDescribes},
		{"provision again keeps the port", testReprovision},
		{"a replaced agent gets its port again", testReplacedKeepsPort},
		{"advertised url with a trailing slash", testAdvertisedURLTrailingSlash},
		{"planned address", testPlannedAddress},
		{"provisioned again after a stop reads stopped", testReprovisionedStoppedAgent},
		{"create only", testCreateOnly},
		{"concurrent creates of one id", testConcurrentCreates},
		{"config and allowlist read back", testReadBack},
		{"a variable changed since the start reads changed", testChangedEnv},
		{"recover", testRecover},
		{"logs", testLogs},
		{"deprovision", testDeprovision},
		{"list sorted", testListSorted},
		{"incomplete config keeps the agent", testIncompleteKeepsAgent},
		{"provider settings read back as planned", testSettings},
		{"a workload where the runtime takes none", testWorkload},
	}
	if h.Crash != nil {
		cases = append(cases, contractCase{"crash reads stopped", testCrash})
	}
	if h.Kill != nil {
		cases = append(cases, []contractCase{
			{"an agent killed restarts under its restart policy", testKilledRestarts},
			{"a stopped agent stays down", testStoppedStaysDown},
		}...)
	}
	if h.KillSupervisor != nil {
		cases = append(cases, contractCase{"a supervisor killed leaves its agent adopted", testSupervisorKilled})
	}
	if !h.NoAgentOutput {
		// Only an agent host shows in its card the values it received.
		cases = append(cases, []contractCase{
			{"write-only values", testWriteOnly},
			{"owned variables", testOwnedVariables},
			{"restart reads the values of now", testRestart},
			{"every binding the card lists answers", testEveryBinding},
			{"jwt auth", testJWT},
		}...)
	}
	if h.Brought != nil {
		cases = append(cases, []contractCase{
			{"brought agent lifecycle", testBroughtLifecycle},
			{"brought agent with an invalid card", testBroughtInvalidCard},
			{"brought agent that exits at once", testBroughtExitsAtOnce},
		}...)
	}
	if _, ok := h.New(t).(agentruntime.Roller); ok {
		cases = append(cases, []contractCase{
			{"roll", testRoll},
			{"a failed roll keeps the agent as it was", testRollFails},
		}...)
	}
	if h.Unsupported != nil {
		cases = append(cases, contractCase{"unsupported", func(t *testing.T, h Harness) { h.Unsupported(t, h.New(t)) }})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, h) })
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*healthyWithin)
	t.Cleanup(cancel)
	return c
}

// provision provisions an agent named name and deprovisions it when the test ends.
func provision(t *testing.T, h Harness, rt agentruntime.Runtime, name string) agentruntime.Agent {
	t.Helper()
	return provisionSpec(t, rt, agentruntime.Spec{Config: h.Config(name)})
}

// provisionSpec provisions spec and deprovisions the agent when the test ends.
func provisionSpec(t *testing.T, rt agentruntime.Runtime, spec agentruntime.Spec) agentruntime.Agent {
	t.Helper()
	a, err := rt.Provision(ctx(t), spec)
	if err != nil {
		t.Fatalf("Provision: %v", err)
	}
	t.Cleanup(func() {
		if err := rt.Deprovision(context.Background(), a.ID); err != nil {
			t.Errorf("cleanup: Deprovision %s: %v", a.ID, err)
		}
	})
	return a
}

func startHealthy(t *testing.T, rt agentruntime.Runtime, id string) {
	t.Helper()
	if err := rt.Start(ctx(t), id); err != nil {
		t.Fatalf("Start %s: %v", id, err)
	}
	wait, cancel := context.WithTimeout(context.Background(), healthyWithin)
	defer cancel()
	if h, err := agentruntime.WaitHealthy(wait, rt, id); err != nil {
		t.Fatalf("WaitHealthy %s: health %s: %v", id, h, err)
	}
}

func wantHealth(t *testing.T, rt agentruntime.Runtime, id string, want agentruntime.Health) {
	t.Helper()
	a, err := rt.Get(ctx(t), id)
	if err != nil {
		t.Fatalf("Get %s: %v", id, err)
	}
	if a.Health != want {
		t.Fatalf("Get %s: health %s, want %s", id, a.Health, want)
	}
}

func testLifecycle(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Lifecycle")
	if a.ID != "contract-lifecycle" || a.Name != "Contract Lifecycle" {
		t.Errorf("Provision = id %q name %q, want id contract-lifecycle name %q", a.ID, a.Name, "Contract Lifecycle")
	}
	if a.Port == 0 || a.Endpoint == "" || !strings.HasPrefix(a.CardURL, a.Endpoint) || len(a.ConfigSHA256) != 64 {
		t.Errorf("Provision left fields empty: %+v", a)
	}
	if a.Running || a.Instance != "" {
		t.Errorf("Provision started the agent: %+v", a)
	}
	wantHealth(t, rt, a.ID, agentruntime.HealthProvisioned)

	for round := 1; round <= 2; round++ {
		startHealthy(t, rt, a.ID)
		got, err := rt.Get(ctx(t), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Running || got.Instance == "" || got.Health != agentruntime.HealthHealthy || got.Port != a.Port {
			t.Errorf("round %d: Get after start = %+v, want running and healthy on port %d", round, got, a.Port)
		}
		if err := rt.Stop(ctx(t), a.ID); err != nil {
			t.Fatalf("round %d: Stop: %v", round, err)
		}
		wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
		got, err = rt.Get(ctx(t), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Running || got.Instance != "" {
			t.Errorf("round %d: Get after stop = %+v, want not running and no instance", round, got)
		}
	}
}

func testStopIdempotent(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Stop")
	if err := rt.Stop(ctx(t), a.ID); err != nil {
		t.Errorf("Stop of a never started agent: %v", err)
	}
	wantHealth(t, rt, a.ID, agentruntime.HealthProvisioned)
	startHealthy(t, rt, a.ID)
	for i := range 2 {
		if err := rt.Stop(ctx(t), a.ID); err != nil {
			t.Errorf("Stop %d: %v", i+1, err)
		}
	}
	wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
}

func testStartTwice(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Start Twice")
	startHealthy(t, rt, a.ID)
	err := rt.Start(ctx(t), a.ID)
	if !agentruntime.IsKind(err, agentruntime.KindAlreadyRunning) {
		t.Errorf("second Start = %v, want already running", err)
	}
	wantHealth(t, rt, a.ID, agentruntime.HealthHealthy)
}

func testUnknownID(t *testing.T, h Harness) {
	rt := h.New(t)
	const id = "contract-never-provisioned"
	ops := map[string]func(context.Context) error{
		"Start": func(c context.Context) error { return rt.Start(c, id) },
		"Stop":  func(c context.Context) error { return rt.Stop(c, id) },
		"Get":   func(c context.Context) error { _, err := rt.Get(c, id); return err },
		"Logs":  func(c context.Context) error { _, err := rt.Logs(c, id, 10); return err },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			err := op(ctx(t))
			if !agentruntime.IsKind(err, agentruntime.KindNotFound) {
				t.Fatalf("%s of an unknown id = %v, want not found", name, err)
			}
			if !strings.Contains(err.Error(), id) {
				t.Errorf("%s error %q does not name the id", name, err)
			}
		})
	}
	if err := rt.Deprovision(ctx(t), id); err != nil {
		t.Errorf("Deprovision of an unknown id = %v, want success", err)
	}
}

func testInvalidConfig(t *testing.T, h Harness) {
	rt := h.New(t)
	tests := []struct {
		name, config, mention string
	}{
		{"not toml", "[agent\nname = 1", "line"},
		{"unknown key", "[agent]\nname = \"x\"\ncolour = \"red\"\n", "colour"},
		{"no name", "[agent]\ndescription = \"nameless\"\n", "agent.name"},
		{"bad port", "[agent]\nname = \"x\"\n[server]\nhttp_port = 70000\n", "http_port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := agentruntime.Spec{Config: []byte(tt.config)}
			for op, call := range map[string]func() error{
				"Check":     func() error { _, err := rt.Check(ctx(t), spec); return err },
				"Provision": func() error { _, err := rt.Provision(ctx(t), spec); return err },
			} {
				err := call()
				if !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) {
					t.Fatalf("%s = %v, want invalid config", op, err)
				}
				if !strings.Contains(err.Error(), tt.mention) {
					t.Errorf("%s error %q does not mention %q", op, err, tt.mention)
				}
			}
		})
	}
	assertAbsent(t, rt, "x")
}

func testDisallowedEnv(t *testing.T, h Harness) {
	rt := h.New(t)
	base := string(h.Config("Contract Env"))
	raw := []byte(base + "\n# ${CONTRACT_SECRET_A} ${CONTRACT_SECRET_B:-fallback} ${CONTRACT_ALLOWED} ${HOST}\n")
	tests := []struct {
		name   string
		allow  *agentruntime.EnvAllowlist
		denied []string
	}{
		{"no allowlist", nil, []string{"CONTRACT_ALLOWED", "CONTRACT_SECRET_A", "CONTRACT_SECRET_B"}},
		{"partial allowlist", &agentruntime.EnvAllowlist{Name: "partial", Variables: []string{"CONTRACT_ALLOWED"}},
			[]string{"CONTRACT_SECRET_A", "CONTRACT_SECRET_B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := agentruntime.Spec{Config: raw, Allowlist: tt.allow}
			for op, call := range map[string]func() error{
				"Check":     func() error { _, err := rt.Check(ctx(t), spec); return err },
				"Provision": func() error { _, err := rt.Provision(ctx(t), spec); return err },
			} {
				err := call()
				var rerr *agentruntime.Error
				if !errors.As(err, &rerr) || rerr.Kind != agentruntime.KindDisallowedEnv {
					t.Fatalf("%s = %v, want disallowed env", op, err)
				}
				if !slices.Equal(rerr.Vars, tt.denied) {
					t.Errorf("%s names %v, want %v", op, rerr.Vars, tt.denied)
				}
				for _, v := range tt.denied {
					if !strings.Contains(err.Error(), v) {
						t.Errorf("%s error %q does not name %s", op, err, v)
					}
				}
			}
		})
	}
	assertAbsent(t, rt, "contract-env")

	all := &agentruntime.EnvAllowlist{Name: "all", Variables: []string{"CONTRACT_SECRET_A", "CONTRACT_SECRET_B", "CONTRACT_ALLOWED"}}
	if _, err := rt.Check(ctx(t), agentruntime.Spec{Config: raw, Allowlist: all}); err != nil {
		t.Errorf("Check with every variable allowed: %v", err)
	}
}

func testReprovision(t *testing.T, h Harness) {
	rt := h.New(t)
	first := provision(t, h, rt, "Contract Reprovision")
	changed := append(h.Config("Contract Reprovision"), []byte("\n# changed\n")...)
	second, err := rt.Provision(ctx(t), agentruntime.Spec{Config: changed})
	if err != nil {
		t.Fatal(err)
	}
	if second.ID != first.ID || second.Port != first.Port {
		t.Errorf("Provision again = id %s port %d, want id %s port %d", second.ID, second.Port, first.ID, first.Port)
	}
	if second.ConfigSHA256 == first.ConfigSHA256 {
		t.Error("Provision again kept the old config digest")
	}
}

// testReplacedKeepsPort deprovisions a running agent and creates it again
// with its old port preferred, as the provider replaces an agent: it gets
// that port back, and serves on it. A preferred port another agent holds
// is not given.
func testReplacedKeepsPort(t *testing.T, h Harness) {
	rt := h.New(t)
	old, err := rt.Provision(ctx(t), agentruntime.Spec{Config: h.Config("Contract Replaced")})
	if err != nil {
		t.Fatal(err)
	}
	startHealthy(t, rt, old.ID)
	if err := rt.Deprovision(ctx(t), old.ID); err != nil {
		t.Fatal(err)
	}
	replaced := provisionSpec(t, rt, agentruntime.Spec{Config: h.Config("Contract Replaced"), CreateOnly: true, PreferredPort: old.Port})
	if replaced.Port != old.Port {
		t.Errorf("the replacement got port %d, want the replaced agent's port %d", replaced.Port, old.Port)
	}
	startHealthy(t, rt, replaced.ID)
	other := provisionSpec(t, rt, agentruntime.Spec{Config: h.Config("Contract Replaced Other"), PreferredPort: old.Port})
	if other.Port == replaced.Port {
		t.Errorf("another agent got port %d, which agent %s holds", other.Port, replaced.ID)
	}
}

// testCreateOnly checks that a CreateOnly provision creates a new agent
// and refuses, leaving it as it was, one that exists.
func testCreateOnly(t *testing.T, h Harness) {
	rt := h.New(t)
	first := provisionSpec(t, rt, agentruntime.Spec{Config: h.Config("Contract Create Only"), CreateOnly: true})
	again := append(h.Config("Contract Create Only"), "\n# another config\n"...)
	_, err := rt.Provision(ctx(t), agentruntime.Spec{Config: again, CreateOnly: true})
	if !agentruntime.IsKind(err, agentruntime.KindConflict) || !strings.Contains(err.Error(), first.ID) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("CreateOnly Provision of an existing id = %v, want a conflict saying %s already exists", err, first.ID)
	}
	got, err := rt.Get(ctx(t), first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ConfigSHA256 != first.ConfigSHA256 || got.Port != first.Port {
		t.Errorf("the refused provision changed the agent: %+v, was %+v", got, first)
	}
}

// creators is how many provisions race to create one agent.
const creators = 8

// testConcurrentCreates races CreateOnly provisions of one new id, each
// through a runtime of its own as separate provider processes would (one
// shared runtime when nothing outlives it): exactly one may create it,
// every other must be told it exists.
func testConcurrentCreates(t *testing.T, h Harness) {
	config := h.Config("Contract Create Race")
	runtimes := make([]agentruntime.Runtime, creators)
	for i := range runtimes {
		runtimes[i] = runtimes[0]
		if i == 0 || h.Durable {
			runtimes[i] = h.New(t)
		}
	}
	errs := make([]error, creators)
	ids := make([]string, creators)
	var wg sync.WaitGroup
	for i, rt := range runtimes {
		wg.Go(func() {
			a, err := rt.Provision(ctx(t), agentruntime.Spec{Config: config, CreateOnly: true})
			ids[i], errs[i] = a.ID, err
		})
	}
	wg.Wait()
	created := 0
	for i, err := range errs {
		switch {
		case err == nil:
			created++
			t.Cleanup(func() {
				if err := runtimes[i].Deprovision(context.Background(), ids[i]); err != nil {
					t.Errorf("cleanup: Deprovision %s: %v", ids[i], err)
				}
			})
		case !agentruntime.IsKind(err, agentruntime.KindConflict):
			t.Errorf("creator %d: Provision = %v, want success or a conflict", i, err)
		}
	}
	if created != 1 {
		t.Errorf("%d of %d racing creators created the agent, want exactly 1", created, creators)
	}
}

// testReadBack checks that every view of an agent carries the raw config
// and allowlist name last provisioned, as importing an agent needs.
func testReadBack(t *testing.T, h Harness) {
	rt := h.New(t)
	const name = "Contract Read Back"
	plain := h.Config(name)
	referencing := append(slices.Clone(plain), "\n# greeting: ${CONTRACT_GREETING:-x}\n"...)
	greeting := &agentruntime.EnvAllowlist{Name: "contract-greeting", Variables: []string{"CONTRACT_GREETING"}}
	steps := []struct {
		name          string
		spec          agentruntime.Spec
		wantAllowlist string
	}{
		{"with an allowlist", agentruntime.Spec{Config: referencing, Allowlist: greeting}, greeting.Name},
		{"then without one", agentruntime.Spec{Config: plain}, ""},
	}
	for _, step := range steps {
		provisioned := provisionSpec(t, rt, step.spec)
		views := map[string]func() (agentruntime.Agent, error){
			"Provision": func() (agentruntime.Agent, error) { return provisioned, nil },
			"Get":       func() (agentruntime.Agent, error) { return rt.Get(ctx(t), provisioned.ID) },
			"List":      func() (agentruntime.Agent, error) { return listed(t, rt, provisioned.ID) },
		}
		if h.Durable {
			views["Get from a fresh runtime"] = func() (agentruntime.Agent, error) { return h.New(t).Get(ctx(t), provisioned.ID) }
		}
		for view, read := range views {
			a, err := read()
			if err != nil {
				t.Fatalf("%s: %s: %v", step.name, view, err)
			}
			if !bytes.Equal(a.Config, step.spec.Config) {
				t.Errorf("%s: %s config = %q, want the provisioned %q", step.name, view, a.Config, step.spec.Config)
			}
			if a.EnvAllowlist != step.wantAllowlist {
				t.Errorf("%s: %s env allowlist = %q, want %q", step.name, view, a.EnvAllowlist, step.wantAllowlist)
			}
		}
	}
}

// listed is the agent id as List shows it.
func listed(t *testing.T, rt agentruntime.Runtime, id string) (agentruntime.Agent, error) {
	list, err := rt.List(ctx(t))
	if err != nil {
		return agentruntime.Agent{}, err
	}
	for _, a := range list {
		if a.ID == id {
			return a, nil
		}
	}
	return agentruntime.Agent{}, fmt.Errorf("the list of agents does not hold %s", id)
}

func testRecover(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Recover")
	startHealthy(t, rt, a.ID)

	fresh := h.New(t)
	rec, err := fresh.Recover(ctx(t))
	if err != nil {
		t.Fatalf("Recover: %v", err)
	}
	if !h.Durable {
		if rec.Mode != agentruntime.Ephemeral || len(rec.IDs) != 0 {
			t.Errorf("Recover of an ephemeral runtime = %+v, want mode ephemeral and no ids", rec)
		}
		return
	}
	if rec.Mode != agentruntime.Adopted || !slices.Contains(rec.IDs, a.ID) {
		t.Fatalf("Recover = %+v, want mode adopted including %s", rec, a.ID)
	}
	if !slices.IsSorted(rec.IDs) {
		t.Errorf("Recover ids %v are not sorted", rec.IDs)
	}
	wantHealth(t, fresh, a.ID, agentruntime.HealthHealthy)
	got, err := fresh.Get(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Port != a.Port || got.Endpoint != a.Endpoint || got.ConfigSHA256 != a.ConfigSHA256 {
		t.Errorf("adopted agent = %+v, want the provisioned %+v", got, a)
	}
	if err := fresh.Stop(ctx(t), a.ID); err != nil {
		t.Fatalf("Stop through the fresh runtime: %v", err)
	}
	wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
}

// testLogs checks that the logs keep what the agent itself wrote, across a
// restart, and that tail cuts them.
func testLogs(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Logs")
	startHealthy(t, rt, a.ID)
	waitAgentStarts(t, h, rt, a.ID, 1)
	if err := rt.Stop(ctx(t), a.ID); err != nil {
		t.Fatal(err)
	}
	startHealthy(t, rt, a.ID)
	waitAgentStarts(t, h, rt, a.ID, 2)
	all, err := rt.Logs(ctx(t), a.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 {
		t.Fatalf("Logs after two starts = %q, want at least two lines", all)
	}
	for _, tail := range []int{1, 2} {
		got, err := rt.Logs(ctx(t), a.ID, tail)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, all[len(all)-tail:]) {
			t.Errorf("Logs with tail %d = %q, want the last %d of %q", tail, got, tail, all)
		}
	}
}

// waitAgentStarts waits until the logs of agent id hold the agent host's
// startup line want times, one for each start: the agent's own output,
// which the adapter's lines cannot stand in for.
func waitAgentStarts(t *testing.T, h Harness, rt agentruntime.Runtime, id string, want int) {
	t.Helper()
	if h.NoAgentOutput {
		return
	}
	got := 0
	waitLogs(t, rt, id, func(lines []string) bool {
		got = 0
		for _, l := range lines {
			if isAgentStart(l, id) {
				got++
			}
		}
		return got >= want
	}, func() string {
		return fmt.Sprintf("the agent host's startup line %d times, want %d (one per start)", got, want)
	})
}

// waitLogs polls the logs of agent id until done finds in them what it
// waits for: a line may reach the logs a little after the card answers.
// When they lack it for too long the test fails, saying what they hold.
func waitLogs(t *testing.T, rt agentruntime.Runtime, id string, done func(lines []string) bool, holds func() string) {
	t.Helper()
	wait, cancel := context.WithTimeout(ctx(t), healthyWithin)
	defer cancel()
	for {
		lines, err := rt.Logs(wait, id, 0)
		if err != nil {
			t.Fatalf("Logs: %v", err)
		}
		if done(lines) {
			return
		}
		select {
		case <-wait.Done():
			t.Fatalf("Logs of %s hold %s:\n%s", id, holds(), strings.Join(lines, "\n"))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// isAgentStart tells the line the agent host writes once it listens
// (`msg="agent host started" agent=<id> listen=...`).
func isAgentStart(line, id string) bool {
	return strings.Contains(line, "agent host started") && strings.Contains(line, " agent="+id+" ")
}

func testDeprovision(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Deprovision")
	startHealthy(t, rt, a.ID)
	if err := rt.Deprovision(ctx(t), a.ID); err != nil {
		t.Fatal(err)
	}
	assertAbsent(t, rt, a.ID)
	if _, err := rt.Get(ctx(t), a.ID); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		t.Errorf("Get after Deprovision = %v, want not found", err)
	}
	if err := rt.Deprovision(ctx(t), a.ID); err != nil {
		t.Errorf("second Deprovision = %v, want success", err)
	}
}

func testListSorted(t *testing.T, h Harness) {
	rt := h.New(t)
	names := []string{"Contract List C", "Contract List A", "Contract List B"}
	var want []string
	for _, n := range names {
		want = append(want, provision(t, h, rt, n).ID)
	}
	slices.Sort(want)
	list, err := rt.List(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var ids, ours []string
	for _, a := range list {
		ids = append(ids, a.ID)
		if slices.Contains(want, a.ID) {
			ours = append(ours, a.ID)
			if a.Health != agentruntime.HealthProvisioned {
				t.Errorf("List shows %s as %s, want provisioned", a.ID, a.Health)
			}
		}
	}
	if !slices.IsSorted(ids) {
		t.Errorf("List ids %v are not sorted", ids)
	}
	if !slices.Equal(ours, want) {
		t.Errorf("List holds %v of ours, want %v", ours, want)
	}
}

func testCrash(t *testing.T, h Harness) {
	rt := h.New(t)
	a := provision(t, h, rt, "Contract Crash")
	startHealthy(t, rt, a.ID)
	h.Crash(t, a.ID)
	// No polling: the moment the agent is dead it must read stopped.
	wantHealth(t, rt, a.ID, agentruntime.HealthStopped)
	got, err := rt.Get(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Running {
		t.Errorf("Get after crash = %+v, want not running", got)
	}
	startHealthy(t, rt, a.ID)
}

func assertAbsent(t *testing.T, rt agentruntime.Runtime, id string) {
	t.Helper()
	list, err := rt.List(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		if a.ID == id {
			t.Errorf("List still holds %s: %s", id, fmt.Sprint(a))
		}
	}
}
