package provider

import (
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
)

// TestImportableAgentMessage: an id the runtime never recorded is refused
// naming what starts an agent by hand today (the agent host program), not a
// subcommand the provider no longer has, and what to do instead.
func TestImportableAgentMessage(t *testing.T) {
	recorded := memory.New()
	if _, err := recorded.Provision(t.Context(), agentruntime.Spec{Config: []byte(echoConfig("Echo Agent", "recorded"))}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		rt     agentruntime.Runtime
		id     string
		want   []string
		unwant []string
	}{
		{
			name: "no agents at all", rt: memory.New(), id: "hand-started",
			want:   []string{`no agent "hand-started"`, "a2a-agent-host --config", "a2a_agent resource"},
			unwant: []string{"run subcommand", "Its agents"},
		},
		{
			name: "other agents recorded", rt: recorded, id: "hand-started",
			want:   []string{`no agent "hand-started"`, "a2a-agent-host --config", "Its agents: echo-agent"},
			unwant: []string{"run subcommand"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := importableAgent(t.Context(), tt.rt, tt.id)
			if err == nil {
				t.Fatal("import of an unrecorded agent was allowed")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, u := range tt.unwant {
				if strings.Contains(err.Error(), u) {
					t.Errorf("error %q says %q", err, u)
				}
			}
		})
	}
	if err := importableAgent(t.Context(), recorded, "echo-agent"); err != nil {
		t.Errorf("a recorded agent is refused: %v", err)
	}
}
