package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// TestTaskStoreWarning: the plan of an agent of the built-in host with
// replicas and no task store warns that task calls may miss, naming the
// fix; one replica, a store, an agent that makes no tasks and a brought
// agent plan no such warning.
func TestTaskStoreWarning(t *testing.T) {
	const agent = "[agent]\nname = \"Many\"\n"
	tests := []struct {
		name     string
		config   string
		replicas int64
		warns    bool
	}{
		{"replicas without a store", agent, 3, true},
		{"one replica", agent, 1, false},
		{"replicas with a store", agent + "[tasks]\nstore = \"${TASKS_STORE}\"\n", 3, false},
		{"replicas answering with messages", agent + "[handler.echo]\nreply = \"message\"\n", 3, false},
		{"replicas of an llm agent", agent + "[handler]\ntype = \"llm\"\n[handler.llm]\nbase_url = \"https://m.example/v1\"\nmodel = \"m\"\n", 2, true},
		{"replicas of a brought agent", agent + "[runtime]\nimage = \"example.com/agent:1\"\n", 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := &agentModel{Config: types.StringValue(tt.config), EnvAllowlist: types.StringNull(), Running: types.BoolValue(true),
				WaitForHealthy: types.BoolValue(true), Replicas: types.Int64Value(tt.replicas)}
			_, diags := planAgent(t.Context(), nil, nil, plan, plannedAllowlist{known: true}, writeOnly{known: true})
			if diags.HasError() {
				t.Fatal(diags)
			}
			var warning string
			for _, d := range diags.Warnings() {
				if strings.Contains(d.Summary(), "task store") {
					warning = d.Detail()
				}
			}
			if (warning != "") != tt.warns {
				t.Fatalf("warning %q, want one: %v", warning, tt.warns)
			}
			if !tt.warns {
				return
			}
			cfg, _ := agentconfig.Parse([]byte(tt.config))
			for _, want := range []string{`"` + cfg.ID() + `"`, "[tasks] store", "$${TASKS_STORE}", "a2a_env_allowlist", "GetTask"} {
				if !strings.Contains(warning, want) {
					t.Errorf("warning %q does not say %s", warning, want)
				}
			}
		})
	}
}

// TestTaskStorePasswordRefusedAtPlan: terraform plan refuses an agent
// whose [tasks] store writes its password literally, naming where the config
// says it.
func TestTaskStorePasswordRefusedAtPlan(t *testing.T) {
	acc := newAccTest(t)
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      acc.agent("[agent]\nname = \"Leaky Store\"\n[tasks]\nstore = \"postgres://tasks:hunter2-5c1a@db.example.com/tasks\""),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)line 4, column 1: ` + wordsPattern("tasks.store writes the database password literally in the URL")),
		}, {
			// A key only the driver's percent-decoding reads as password.
			Config:      acc.agent("[agent]\nname = \"Leaky Store\"\n[tasks]\nstore = \"postgres://db.example.com/tasks?pass%77ord=hunter2-5c1a\""),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)line 4, column 1: ` + wordsPattern("tasks.store writes the database password literally in the URL")),
		}},
	})
}
