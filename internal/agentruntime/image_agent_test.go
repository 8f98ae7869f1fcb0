package agentruntime

import (
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

func TestCheckImageAgent(t *testing.T) {
	tests := []struct {
		name, runtime, want string
	}{
		{"image and command", "image = \"example.org/agent:1\"\ncommand = [\"/agent\"]", ""},
		{"image alone", "image = \"example.org/agent:1\"", ""},
		{"image from a variable", "image = \"example.org/agent:${TAG}\"", "runtime.image \"example.org/agent:${TAG}\" must be literal"},
		{"command without image", "command = [\"/agent\"]", "runtime.command on the kubernetes adapter runs in runtime.image"},
		{"working dir", "image = \"example.org/agent:1\"\nworking_dir = \"/srv\"", "runtime.working_dir is for the local adapter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := agentconfig.Parse([]byte("[agent]\nname = \"Image Agent\"\n[runtime]\n" + tt.runtime + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			err = CheckImageAgent(cfg, "kubernetes")
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckImageAgent = %v, want nil", err)
				}
				return
			}
			if !IsKind(err, KindInvalidConfig) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "line ") {
				t.Errorf("CheckImageAgent = %v, want invalid config saying %q at its line", err, tt.want)
			}
		})
	}
}
