package contracttest

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// testRestart: agentruntime.Restart of a running agent brings it back
// healthy in fresh instances that read the value its allowlisted variable
// has now, a rotated secret, and the write-only value it was provisioned
// with. A Restarter replaces the instances one at a time; every runtime
// keeps the agent's address. A stopped agent is not restarted, and stays
// stopped.
func testRestart(t *testing.T, h Harness) {
	rt := h.New(t)
	t.Setenv("CONTRACT_ROTATED", "rotated-before")
	allow := &agentruntime.EnvAllowlist{Name: "contract-rotated", Variables: []string{"CONTRACT_ROTATED"}}
	raw := append(writeOnlyConfig(h, "Contract Restart"), "\n[[skills]]\nid = \"rotated\"\nname = \"${CONTRACT_ROTATED}\"\ndescription = \"from an allowlisted variable\"\n"...)
	a := provisionSpec(t, rt, agentruntime.Spec{Config: raw, Allowlist: allow, WriteOnly: agentruntime.WriteOnlyValues{"WO_SKILL": "wo-kept"}})
	startHealthy(t, rt, a.ID)
	before := getAgent(t, rt, a.ID)
	h.wantCardWith(t, before, "rotated-before")

	t.Setenv("CONTRACT_ROTATED", "rotated-after")
	restarted, err := agentruntime.Restart(ctx(t), rt, a.ID)
	if err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if !restarted.Running || restarted.Health != agentruntime.HealthHealthy || restarted.Instance == "" || restarted.Instance == before.Instance {
		t.Fatalf("Restart = running %v, %s, instances %q; want healthy in instances other than %q", restarted.Running, restarted.Health, restarted.Instance, before.Instance)
	}
	if _, rolls := rt.(agentruntime.Restarter); rolls && slices.ContainsFunc(strings.Split(restarted.Instance, ","), func(i string) bool {
		return slices.Contains(strings.Split(before.Instance, ","), i)
	}) {
		t.Errorf("a rolling restart left some of the instances %q it began with: %q", before.Instance, restarted.Instance)
	}
	if restarted.Endpoint != before.Endpoint || restarted.Port != before.Port {
		t.Errorf("Restart moved the agent from %s (port %d) to %s (port %d)", before.Endpoint, before.Port, restarted.Endpoint, restarted.Port)
	}
	h.wantCardWith(t, restarted, "rotated-after")
	h.wantCardWith(t, restarted, "wo-kept")

	if err := rt.Stop(ctx(t), a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := agentruntime.Restart(ctx(t), rt, a.ID); !agentruntime.IsKind(err, agentruntime.KindNotRunning) {
		t.Errorf("Restart of a stopped agent = %v, want a not-running error", err)
	}
	if got := getAgent(t, rt, a.ID); got.Running {
		t.Errorf("Restart of a stopped agent started it (%s)", got.Health)
	}
}

// testChangedEnv: a running agent whose allowlisted variable has another
// value in the provider's environment than the agent started with (set,
// changed or unset since) names it in ChangedEnv, and only then: the value
// it started with again, a stopped agent, and an agent started anew read
// none. This is what lets a plan show such a change, which Terraform
// cannot see.
func testChangedEnv(t *testing.T, h Harness) {
	rt := h.New(t)
	const name = "CONTRACT_CHANGED"
	t.Setenv(name, "before")
	allow := &agentruntime.EnvAllowlist{Name: "contract-changed", Variables: []string{name}}
	raw := append(h.Config("Contract Changed Env"), "\n[[skills]]\nid = \"changed\"\nname = \"${CONTRACT_CHANGED:-none}\"\ndescription = \"from an allowlisted variable\"\n"...)
	spec := agentruntime.Spec{Config: raw, Allowlist: allow}
	a := provisionSpec(t, rt, spec)
	startHealthy(t, rt, a.ID)
	wantChanged := func(step string, want ...string) {
		t.Helper()
		if got := getAgent(t, rt, a.ID).ChangedEnv; !slices.Equal(got, want) {
			t.Errorf("%s: ChangedEnv = %v, want %v", step, got, want)
		}
	}
	wantChanged("as started")
	t.Setenv(name, "after")
	wantChanged("value changed", name)
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
	wantChanged("variable unset", name)
	t.Setenv(name, "before")
	wantChanged("value as started again")

	t.Setenv(name, "after")
	if err := rt.Stop(ctx(t), a.ID); err != nil {
		t.Fatal(err)
	}
	wantChanged("stopped")
	if _, err := rt.Provision(ctx(t), spec); err != nil {
		t.Fatalf("Provision again: %v", err)
	}
	startHealthy(t, rt, a.ID)
	wantChanged("started again with the new value")
}
