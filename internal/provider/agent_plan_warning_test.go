package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestRestartSaysWhy: a plan that restarts an agent whose config did not
// change warns, naming the agent and its health, and, for an agent started
// without waiting, that it may only be starting still.
func TestRestartSaysWhy(t *testing.T) {
	for _, wait := range []bool{true, false} {
		prior := &agentModel{
			ID: types.StringValue("slow-agent"), Config: types.StringValue("[agent]\nname = \"Slow Agent\"\n"),
			ConfigSHA256: types.StringValue("digest of the config"),
			EnvAllowlist: types.StringNull(), Running: types.BoolValue(true), WaitForHealthy: types.BoolValue(wait),
			Health: types.StringValue(string(agentruntime.HealthUnhealthy)), InjectedEnv: stringList(nil),
		}
		plan := *prior
		if _, diags := planAgent(t.Context(), nil, prior, &plan, plannedAllowlist{known: true}, writeOnly{known: true}); diags.HasError() {
			t.Fatal(diags)
		} else {
			if diags.WarningsCount() != 1 {
				t.Fatalf("wait_for_healthy = %v: %d warnings, want one saying why the agent restarts", wait, diags.WarningsCount())
			}
			detail := diags.Warnings()[0].Detail()
			for _, want := range []string{`"slow-agent"`, `"unhealthy"`} {
				if !strings.Contains(detail, want) {
					t.Errorf("warning %q does not name %s", detail, want)
				}
			}
			if mentions := strings.Contains(detail, "wait_for_healthy = false"); mentions == wait {
				t.Errorf("wait_for_healthy = %v: warning %q mentions wait_for_healthy = false: %v", wait, detail, mentions)
			}
		}
	}
}
