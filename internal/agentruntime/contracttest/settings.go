package contracttest

import (
	"maps"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// testSettings: the provider settings an agent's objects carry read back as
// the runtime plans them; a runtime over the same store with other
// settings plans others, and provisioning the agent through it gives the
// objects those. A runtime that no setting reaches reads none back.
func testSettings(t *testing.T, h Harness) {
	rt := h.New(t)
	raw := h.Config("Contract Settings")
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	a := provisionSpec(t, rt, agentruntime.Spec{Config: raw})
	runner, ok := rt.(agentruntime.SettingsRunner)
	if !ok {
		if a.Settings != nil {
			t.Errorf("Provision read back settings %v from a runtime that plans none", a.Settings)
		}
		return
	}
	planned := runner.AgentSettings(cfg, agentruntime.Workload{}, 0)
	if len(planned) == 0 || !maps.Equal(planned, getAgent(t, rt, a.ID).Settings) {
		t.Fatalf("Get read back settings %v, AgentSettings planned %v", getAgent(t, rt, a.ID).Settings, planned)
	}
	if h.OtherSettings == nil {
		t.Fatal("the runtime is a SettingsRunner, but the harness gives no runtime with other settings (OtherSettings)")
	}
	other := h.OtherSettings(t)
	replanned := other.(agentruntime.SettingsRunner).AgentSettings(cfg, agentruntime.Workload{}, 0)
	if maps.Equal(replanned, planned) {
		t.Fatalf("a runtime with other settings plans the same ones, %v", planned)
	}
	if _, err := other.Provision(ctx(t), agentruntime.Spec{Config: raw}); err != nil {
		t.Fatal(err)
	}
	if got := getAgent(t, rt, a.ID).Settings; !maps.Equal(got, replanned) {
		t.Errorf("provisioned with other settings, the agent reads back %v, want %v", got, replanned)
	}
}

// testWorkload: a runtime that takes no workload refuses a spec with one
// as unsupported, and makes nothing of it; one that takes it provisions it.
func testWorkload(t *testing.T, h Harness) {
	rt := h.New(t)
	raw := h.Config("Contract Workload")
	spec := agentruntime.Spec{Config: raw, Workload: agentruntime.Workload{Labels: map[string]string{"team": "contract"}}}
	if _, ok := rt.(agentruntime.WorkloadRunner); ok {
		a := provisionSpec(t, rt, spec)
		if got := getAgent(t, rt, a.ID).Workload; got.Labels["team"] != "contract" {
			t.Errorf("provisioned with a workload, the agent reads back %+v", got)
		}
		return
	}
	_, err := rt.Provision(ctx(t), spec)
	if !agentruntime.IsKind(err, agentruntime.KindUnsupported) || !strings.Contains(err.Error(), "kubernetes adapter") {
		t.Fatalf("Provision with a workload = %v, want unsupported, naming the kubernetes adapter", err)
	}
	cfg, err := agentconfig.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Get(ctx(t), cfg.ID()); !agentruntime.IsKind(err, agentruntime.KindNotFound) {
		t.Errorf("after a refused workload, Get = %v, want not found", err)
	}
}
