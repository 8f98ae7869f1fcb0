package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// TestAllowlistPlanWarnings provisions agents on the in-memory adapter and
// checks which of them an allowlist change, or the delete of an allowlist
// that agents which stay still name, warns about.
func TestAllowlistPlanWarnings(t *testing.T) {
	ctx := context.Background()
	t.Setenv("GREETING", "hello")
	t.Setenv("TOKEN", "token")
	rt := memory.New()
	team := &agentruntime.EnvAllowlist{Name: "team", Variables: []string{"GREETING", "TOKEN"}}
	other := &agentruntime.EnvAllowlist{Name: "other", Variables: []string{"GREETING"}}
	for _, spec := range []agentruntime.Spec{
		{Config: []byte("[agent]\nname = \"Greeter\"\ndescription = \"${GREETING}\"\n"), Allowlist: team},
		{Config: []byte("[agent]\nname = \"Tokened\"\n[auth]\nbearer_token = \"${TOKEN}\"\n"), Allowlist: team},
		{Config: []byte("[agent]\nname = \"Plain\"\n"), Allowlist: team},
		{Config: []byte("[agent]\nname = \"Elsewhere\"\ndescription = \"${GREETING}\"\n"), Allowlist: other},
	} {
		if _, err := rt.Provision(ctx, spec); err != nil {
			t.Fatal(err)
		}
	}
	agents, err := rt.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		diags   diag.Diagnostics
		want    []string // substrings of the one warning; none expects no warning
		notWant []string
	}{
		{"removing a received variable names the agents receiving it", revokedVariablesWarning("team", []string{"GREETING"}, agents),
			[]string{`Env allowlist "team" stops allowing GREETING`, "greeter (GREETING)"}, []string{"tokened", "plain", "elsewhere"}},
		{"removing two names each agent with what it loses", revokedVariablesWarning("team", []string{"GREETING", "TOKEN"}, agents),
			[]string{"greeter (GREETING); tokened (TOKEN)"}, []string{"plain", "elsewhere"}},
		{"removing a variable no agent receives is quiet", revokedVariablesWarning("team", []string{"UNUSED"}, agents), nil, nil},
		{"a deleted allowlist names every agent still naming it", stillNamedWarning("team", agents),
			[]string{`Env allowlist "team" is deleted, but agents greeter, plain and tokened, which stay, name it`, "They keep"},
			[]string{"elsewhere"}},
		{"a deleted allowlist one agent names speaks of that agent", stillNamedWarning("other", agents),
			[]string{`Env allowlist "other" is deleted, but agent elsewhere, which stays, names it`, "It keeps", "Point it at"},
			[]string{"greeter", "agents"}},
		{"a deleted allowlist no agent names is quiet", stillNamedWarning("unused", agents), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == nil {
				if len(tt.diags) != 0 {
					t.Fatalf("diagnostics %v, want none", tt.diags)
				}
				return
			}
			if len(tt.diags) != 1 || tt.diags[0].Severity() != diag.SeverityWarning {
				t.Fatalf("diagnostics %v, want one warning", tt.diags)
			}
			detail := tt.diags[0].Detail()
			for _, w := range tt.want {
				if !strings.Contains(detail, w) {
					t.Errorf("warning %q does not contain %q", detail, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(detail, w) {
					t.Errorf("warning %q names %q, which is not affected", detail, w)
				}
			}
		})
	}
}
