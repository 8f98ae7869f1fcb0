package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestProviderBlockValidation checks that mistakes in the provider block
// fail validation, before any runtime is built.
func TestProviderBlockValidation(t *testing.T) {
	tests := []struct {
		name  string
		block string
		want  string
	}{
		{"both adapters", "local {}\n  container {}", `(?s)These attributes cannot be configured together.*local.*container`},
		{"bad grace period", "local {\n    stop_grace_period = \"ten seconds\"\n  }", `"ten seconds" is not a duration`},
		{"negative grace period", "local {\n    stop_grace_period = \"-1s\"\n  }", `must be greater than zero`},
		{"empty state dir", "state_dir = \"\"", `(?s)Empty value.*Leave the attribute out to use the default\s+state\s+directory`},
		{"bad restart policy", "container {\n    restart_policy = \"sometimes\"\n  }", `(?s)restart_policy.*value must be one of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stateDir := "  state_dir = \"" + t.TempDir() + "\"\n"
			if strings.HasPrefix(tt.block, "state_dir") {
				stateDir = ""
			}
			unitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: "provider \"a2a\" {\n" + stateDir + "  " + tt.block + "\n}\n" +
						"resource \"a2a_env_allowlist\" \"test\" {\n  name      = \"unused\"\n  variables = []\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tt.want),
				}},
			})
		})
	}
}
