package contracttest

import (
	"reflect"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// testPendingAllowlist: a plan may create the allowlist an agent names, so
// Check takes a spec whose allowlist is not known yet and makes every other
// check; Provision, which would have to inject variables, refuses it.
func testPendingAllowlist(t *testing.T, h Harness) {
	rt := h.New(t)
	raw := []byte(string(h.Config("Contract Pending")) + "\n# ${CONTRACT_PENDING_VAR}\n")
	pending := agentruntime.Spec{Config: raw, AllowlistPending: true}
	if _, err := rt.Check(ctx(t), pending); err != nil {
		t.Errorf("Check with the allowlist pending = %v, want success: the env is checked once the allowlist is known", err)
	}
	if _, err := rt.Check(ctx(t), agentruntime.Spec{Config: raw}); !agentruntime.IsKind(err, agentruntime.KindDisallowedEnv) {
		t.Errorf("Check with no allowlist = %v, want disallowed env", err)
	}
	bad := agentruntime.Spec{Config: []byte("[agent]\nname = \"x\"\ncolour = \"red\"\n"), AllowlistPending: true}
	if _, err := rt.Check(ctx(t), bad); !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) {
		t.Errorf("Check of an invalid config with the allowlist pending = %v, want invalid config", err)
	}
	if _, err := rt.Provision(ctx(t), pending); !agentruntime.IsKind(err, agentruntime.KindInvalidConfig) {
		t.Errorf("Provision with the allowlist pending = %v, want invalid config", err)
	}
	assertAbsent(t, rt, "contract-pending")
}

// testCheckDescribes: what Check returns of a spec is the agent Provision
// records for it (id, config digest, allowlist, injected variables), so
// that a plan learns it from the one check it makes; and it carries the
// port preference along.
func testCheckDescribes(t *testing.T, h Harness) {
	rt := h.New(t)
	t.Setenv("CONTRACT_DESCRIBED", "set")
	raw := []byte(string(h.Config("Contract Described")) + "\n# ${CONTRACT_DESCRIBED}\n")
	allow := &agentruntime.EnvAllowlist{Name: "described", Variables: []string{"CONTRACT_DESCRIBED"}}
	spec := agentruntime.Spec{Config: raw, Allowlist: allow, PreferredPort: 41999}
	p, err := rt.Check(ctx(t), spec)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if p.Config == nil || p.PreferredPort != spec.PreferredPort || p.FixedPort != 0 || len(p.WriteOnly) != 0 {
		t.Errorf("Check = config %v, preferred port %d, fixed port %d, write-only %v; want a config, %d, 0 and none",
			p.Config != nil, p.PreferredPort, p.FixedPort, p.WriteOnly, spec.PreferredPort)
	}
	a := provisionSpec(t, rt, agentruntime.Spec{Config: raw, Allowlist: allow})
	checked := agentruntime.Agent{ID: p.ID, ConfigSHA256: p.Digest, EnvAllowlist: p.Allowlist, InjectedEnv: p.InjectedEnv}
	provisioned := agentruntime.Agent{ID: a.ID, ConfigSHA256: a.ConfigSHA256, EnvAllowlist: a.EnvAllowlist, InjectedEnv: a.InjectedEnv}
	if !reflect.DeepEqual(checked, provisioned) || p.ID != "contract-described" || len(p.InjectedEnv) != 1 {
		t.Errorf("Check describes %+v, Provision recorded %+v: want the same, with id contract-described and one injected variable", checked, provisioned)
	}
}
