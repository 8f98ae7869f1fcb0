package contracttest

import (
	"errors"
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
	if err := rt.Check(ctx(t), pending); err != nil {
		t.Errorf("Check with the allowlist pending = %v, want success: the env is checked once the allowlist is known", err)
	}
	if err := rt.Check(ctx(t), agentruntime.Spec{Config: raw}); !errors.Is(err, agentruntime.ErrDisallowedEnv) {
		t.Errorf("Check with no allowlist = %v, want disallowed env", err)
	}
	bad := agentruntime.Spec{Config: []byte("[agent]\nname = \"x\"\ncolour = \"red\"\n"), AllowlistPending: true}
	if err := rt.Check(ctx(t), bad); !errors.Is(err, agentruntime.ErrInvalidConfig) {
		t.Errorf("Check of an invalid config with the allowlist pending = %v, want invalid config", err)
	}
	if _, err := rt.Provision(ctx(t), pending); !errors.Is(err, agentruntime.ErrInvalidConfig) {
		t.Errorf("Provision with the allowlist pending = %v, want invalid config", err)
	}
	assertAbsent(t, rt, "contract-pending")
}
