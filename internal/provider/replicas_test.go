package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAgentReplicasRefused: an adapter that runs one instance of an agent
// refuses more at plan time, naming the adapter that runs them, and no
// value below one passes.
func TestAgentReplicasRefused(t *testing.T) {
	tests := []struct {
		replicas string
		want     string
	}{
		{"2", `(?s)Replicas not supported by this adapter.*local runtime runs one instance.*asks for 2.*kubernetes adapter`},
		{"0", `(?s)replicas.*must be at least 1`},
	}
	for _, tt := range tests {
		t.Run(tt.replicas, func(t *testing.T) {
			acc := newAccTest(t)
			unitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      acc.agent("[agent]\nname = \"Replicas Refused\"", "  replicas = "+tt.replicas),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tt.want),
				}},
			})
		})
	}
}
