package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/container"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/memory"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// memoryFactories serve the provider over the in-memory adapter, which
// outlives each terraform command because it lives in the test process.
func memoryFactories(t *testing.T) map[string]func() (tfprotov6.ProviderServer, error) {
	t.Helper()
	return runtimeFactories(t, memory.New())
}

// runtimeFactories serve the provider over rt and a store of its own.
func runtimeFactories(t *testing.T, rt agentruntime.Runtime) map[string]func() (tfprotov6.ProviderServer, error) {
	t.Helper()
	dir, err := statedir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	deps := &runtimeDeps{runtime: rt, allowlists: statedir.NewAllowlists(dir)}
	p := &a2aProvider{version: "test", connect: func(context.Context, settings) (*runtimeDeps, error) {
		return deps, nil
	}}
	return map[string]func() (tfprotov6.ProviderServer, error){"a2a": providerserver.NewProtocol6WithError(p)}
}

// memCfg renders an agent config for the in-memory adapter, whose provider
// block needs no state dir of its own.
func memCfg(toml string, extra ...string) string {
	return (&accTest{stateDir: "unused"}).agent(toml, extra...)
}

// TestAgentPlan checks, through terraform plan against the in-memory
// adapter, which computed values each kind of change leaves known. After
// every apply the test framework also proves the next plan is empty.
func TestAgentPlan(t *testing.T) {
	t.Setenv("A2A_PLAN_ALLOWED", "allowed")
	v1 := echoConfig("Plan Agent", "one")
	v2 := echoConfig("Plan Agent", "two")
	v2sha := agentconfig.Digest([]byte(heredocText(v2)))
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: memoryFactories(t),
		Steps: []resource.TestStep{
			{
				Config: memCfg(v1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(agentAddr, at("id"), knownvalue.StringExact("plan-agent")),
					plancheck.ExpectKnownValue(agentAddr, at("name"), knownvalue.StringExact("Plan Agent")),
					plancheck.ExpectKnownValue(agentAddr, at("injected_env"), knownvalue.ListSizeExact(0)),
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("healthy")),
					plancheck.ExpectUnknownValue(agentAddr, at("endpoint")),
				}},
			},
			{
				Config: memCfg(v2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("config_sha256"), knownvalue.StringExact(v2sha)),
					plancheck.ExpectKnownValue(agentAddr, at("endpoint"), knownvalue.StringExact("http://127.0.0.1:40000")),
					plancheck.ExpectKnownValue(agentAddr, at("port"), knownvalue.Int64Exact(40000)),
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("healthy")),
					plancheck.ExpectUnknownValue(agentAddr, at("instance")),
				}},
				Check: resource.TestCheckResourceAttr(agentAddr, "instance", "memory-2"),
			},
			{
				// Settings of the resource alone leave the agent untouched.
				Config: memCfg(v2, "  wait_for_healthy = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("instance"), knownvalue.StringExact("memory-2")),
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("healthy")),
				}},
			},
			{
				Config: memCfg(v2, "  running = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("stopped")),
					plancheck.ExpectKnownValue(agentAddr, at("instance"), knownvalue.Null()),
				}},
			},
			{
				Config: memCfg(v1),
			},
			{
				// A new config and a stop in one apply: an agent that has
				// run reads stopped, on every adapter.
				Config: memCfg(v2, "  running = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("health"), knownvalue.StringExact("stopped")),
					plancheck.ExpectKnownValue(agentAddr, at("instance"), knownvalue.Null()),
				}},
				Check: resource.TestCheckResourceAttr(agentAddr, "running", "false"),
			},
			{
				// A port the config fixes is a new endpoint the plan shows.
				Config: memCfg(v2 + "[server]\nhttp_port = 41234\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(agentAddr, at("endpoint"), knownvalue.StringExact("http://127.0.0.1:41234")),
					plancheck.ExpectKnownValue(agentAddr, at("port"), knownvalue.Int64Exact(41234)),
				}},
				Check: resource.TestCheckResourceAttr(agentAddr, "port", "41234"),
			},
			{
				Config: memCfg(echoConfig("Plan Agent Two", "two")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(agentAddr, plancheck.ResourceActionReplace),
					plancheck.ExpectKnownValue(agentAddr, at("id"), knownvalue.StringExact("plan-agent-two")),
				}},
			},
			{
				Config: memCfg(echoConfig("Plan Agent Two", "two")) + planAllowlist,
			},
			{
				// An allowlist that exists is checked at plan time.
				Config: memCfg(echoConfig("Plan Agent Two", "$${A2A_PLAN_ALLOWED} $${A2A_PLAN_NOT_ALLOWED}"),
					`  env_allowlist = a2a_env_allowlist.list.name`) + planAllowlist,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`disallowed\s+variables\s+A2A_PLAN_NOT_ALLOWED\s+\(agent\s+config\s+line\s+3,\s+column\s+\d+\):`),
			},
			{
				Config: memCfg(echoConfig("Plan Agent Two", "$${A2A_PLAN_ALLOWED}"),
					`  env_allowlist = a2a_env_allowlist.list.name`) + planAllowlist,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(agentAddr, at("injected_env"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("A2A_PLAN_ALLOWED")})),
				}},
			},
		},
	})
}

// TestAgentPlanReportsEveryConfigProblem checks that a config with several
// problems fails one plan with a diagnostic for each, each where it is.
func TestAgentPlanReportsEveryConfigProblem(t *testing.T) {
	config := "[agent]\nname = \"Two Problems\"\nnmae = \"x\"\n[server]\nhttp_port = \"eighty\"\n" //nolint:misspell // a typo on purpose: suggestions for typos are under test
	unitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: memoryFactories(t),
		Steps: []resource.TestStep{{
			Config:   memCfg(config),
			PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)` +
				wrapped(`Error: Invalid agent config`) + `.*` +
				wrapped(`agent config line 3, column 1: unknown key "agent.nmae": did you mean "name"?`) + `.*` +
				wrapped(`Error: Invalid agent config`) + `.*` +
				wrapped(`agent config line 5, column 13: server.http_port: expected an integer, got a string`)),
		}},
	})
}

// wrapped matches text as Terraform prints it in a diagnostic, which may
// break a line at any space.
func wrapped(text string) string {
	return strings.ReplaceAll(regexp.QuoteMeta(text), " ", `\s+`)
}

const planAllowlist = `resource "a2a_env_allowlist" "list" {
  name      = "plan-list"
  variables = ["A2A_PLAN_ALLOWED"]
}
`

// heredocText is the text Terraform passes for the heredoc accTest.agent
// renders: the indentation is stripped again.
func heredocText(toml string) string { return strings.TrimSpace(toml) + "\n" }

func TestChangeOf(t *testing.T) {
	model := func(config string, running bool, allowlist string, injected ...string) *agentModel {
		m := &agentModel{Config: types.StringValue(config), ConfigSHA256: types.StringValue("digest of " + config), Running: types.BoolValue(running),
			EnvAllowlist: types.StringNull(), InjectedEnv: stringList(injected)}
		if allowlist != "" {
			m.EnvAllowlist = types.StringValue(allowlist)
		}
		return m
	}
	unknownInjected := model("a", true, "team")
	unknownInjected.InjectedEnv = types.ListUnknown(types.StringType)
	damaged := model("a", true, "")
	damaged.ConfigSHA256 = types.StringNull() // a refresh found it damaged
	hung := model("a", true, "")
	hung.Health = types.StringValue(string(agentruntime.HealthUnhealthy))
	degraded := model("a", true, "")
	degraded.Health = types.StringValue(string(agentruntime.HealthDegraded))
	rescaled := model("a", true, "")
	rescaled.Replicas = types.Int64Value(3)
	respecRescaled := model("b", true, "")
	respecRescaled.Replicas = types.Int64Value(3)
	settings := func(m *agentModel, grace string) *agentModel {
		m.Settings = stringMap(map[string]string{"kubernetes.stop_grace_period": grace})
		return m
	}
	unknownSettings := model("a", true, "")
	unknownSettings.Settings = types.MapUnknown(types.StringType)
	tests := []struct {
		name        string
		prior, plan *agentModel
		rolls       bool
		want        agentChange
	}{
		{"create running", nil, model("a", true, ""), false, agentChange{provision: true, start: true, create: true}},
		{"create stopped", nil, model("a", false, ""), false, agentChange{provision: true, create: true}},
		{"no change", model("a", true, ""), model("a", true, ""), false, agentChange{}},
		{"damaged agent provisions again", damaged, model("a", true, ""), false, agentChange{provision: true, start: true}},
		{"config change restarts", model("a", true, ""), model("b", true, ""), false, agentChange{provision: true, start: true}},
		{"config change while stopped stays stopped", model("a", false, ""), model("b", false, ""), false, agentChange{provision: true}},
		{"allowlist change restarts", model("a", true, ""), model("a", true, "team"), false, agentChange{provision: true, start: true}},
		{"crashed agent starts", model("a", false, ""), model("a", true, ""), false, agentChange{start: true}},
		{"stop", model("a", true, ""), model("a", false, ""), false, agentChange{stop: true}},
		{"config change and stop", model("a", true, ""), model("b", false, ""), false, agentChange{provision: true, stop: true}},
		{"allowlist took a variable away restarts", model("a", true, "team", "X", "Y"), model("a", true, "team", "Y"), false, agentChange{provision: true, start: true}},
		{"allowlist took a variable away from a stopped agent", model("a", false, "team", "X"), model("a", false, "team"), false, agentChange{provision: true}},
		{"injected unknown under an unchanged config provisions again", model("a", true, "team", "X"), unknownInjected, false, agentChange{provision: true, start: true}},
		{"hung agent restarts", hung, model("a", true, ""), false, agentChange{start: true}},
		{"hung agent asked to stop stops", hung, model("a", false, ""), false, agentChange{stop: true}},
		{"replicas change scales in place", model("a", true, ""), rescaled, false, agentChange{provision: true, scale: true}},
		{"config change rolls on a runtime that rolls", model("a", true, ""), model("b", true, ""), true, agentChange{provision: true, roll: true}},
		{"config and replicas change roll", model("a", true, ""), respecRescaled, true, agentChange{provision: true, roll: true}},
		{"allowlist change rolls", model("a", true, "team", "X"), model("a", true, "team"), true, agentChange{provision: true, roll: true}},
		{"hung agent rolls", hung, model("a", true, ""), true, agentChange{roll: true}},
		{"replicas change scales in place on a runtime that rolls", model("a", true, ""), rescaled, true, agentChange{provision: true, scale: true}},
		{"config change while stopped does not roll", model("a", false, ""), model("b", false, ""), true, agentChange{provision: true}},
		{"crashed agent starts on a runtime that rolls", model("a", false, ""), model("b", true, ""), true, agentChange{provision: true, start: true}},
		{"config change and stop do not roll", model("a", true, ""), model("b", false, ""), true, agentChange{provision: true, stop: true}},
		{"no change does not roll", model("a", true, ""), model("a", true, ""), true, agentChange{}},
		{"provider settings change rolls", settings(model("a", true, ""), "10s"), settings(model("a", true, ""), "30s"), true, agentChange{provision: true, roll: true}},
		{"provider settings change restarts", settings(model("a", true, ""), "10s"), settings(model("a", true, ""), "30s"), false, agentChange{provision: true, start: true}},
		{"provider settings change of a stopped agent provisions", settings(model("a", false, ""), "10s"), settings(model("a", false, ""), "30s"), true, agentChange{provision: true}},
		{"same provider settings", settings(model("a", true, ""), "10s"), settings(model("a", true, ""), "10s"), true, agentChange{}},
		{"objects that do not tell their settings", model("a", true, ""), settings(model("a", true, ""), "30s"), true, agentChange{}},
		{"provider settings not known yet", settings(model("a", true, ""), "10s"), unknownSettings, true, agentChange{}},
		{"degraded agent is waited for, not touched", degraded, model("a", true, ""), true, agentChange{heal: true}},
		{"degraded agent with a new config rolls", degraded, model("b", true, ""), true, agentChange{provision: true, roll: true}},
		{"degraded agent rescaled scales", degraded, rescaled, true, agentChange{provision: true, scale: true}},
		{"degraded agent asked to stop stops", degraded, model("a", false, ""), true, agentChange{stop: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := changeOf(tt.prior, tt.plan, tt.rolls); got != tt.want {
				t.Errorf("changeOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestConfigDiags(t *testing.T) {
	_, parseErr := agentconfig.Parse([]byte("[agent]\nname = \"x\"\nbogus = 1\n"))
	_, envErr := agentruntime.CheckEnv(&agentruntime.EnvAllowlist{Name: "team"}, nil, []byte("x = \"${SECRET_A}\""))
	baseImageErr := agentruntime.Errorf(agentruntime.KindInvalidConfig, "provision", "", nil,
		`image "a2a:typo" is not on the engine; it is the provider block's base_image (provider "a2a" { container { base_image = "a2a:typo" } })`)
	baseImageErr.Setting = container.BaseImageSetting
	tests := []struct {
		name       string
		err        error
		allow      *agentruntime.EnvAllowlist
		wantDetail string
	}{
		{"located problem", parseErr, nil, `line 3, column 1: unknown key "agent.bogus"`},
		{"disallowed names the variable", envErr, nil, "SECRET_A"},
		{"disallowed with allowlist hints at ordering", envErr, &agentruntime.EnvAllowlist{Name: "team"}, `adds them to env allowlist "team"`},
		{"other runtime errors pass through", agentruntime.Unsupported("check", "x", "use the container adapter"), nil, "use the container adapter"},
		{"a provider setting's error names the setting", baseImageErr, nil, `provider "a2a" { container { base_image = "a2a:typo" } }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags := configDiags(tt.err, tt.allow)
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %v", len(diags), diags)
			}
			if got := diags[0].Detail(); !regexp.MustCompile(regexp.QuoteMeta(tt.wantDetail)).MatchString(got) {
				t.Errorf("detail %q does not contain %q", got, tt.wantDetail)
			}
			// The runtime's internal operation names mean nothing to an operator.
			if got := diags[0].Detail(); strings.HasPrefix(got, "check") {
				t.Errorf("detail %q starts with the runtime's operation name", got)
			}
			// Only a problem of the config is the config's.
			_, onConfig := diags[0].(diag.DiagnosticWithPath)
			if blamesSetting := agentruntime.SettingOf(tt.err) != ""; onConfig == blamesSetting {
				t.Errorf("diagnostic %q is on the config attribute: %v, want %v", diags[0].Summary(), onConfig, !blamesSetting)
			}
		})
	}
}

// TestExamplesPlan keeps the resource examples honest: each one validates
// and plans against the in-memory adapter.
func TestExamplesPlan(t *testing.T) {
	for _, name := range []string{"a2a_agent", "a2a_env_allowlist"} {
		t.Run(name, func(t *testing.T) {
			// What a user of the examples sets: the allowlisted key and the
			// ephemeral variable.
			t.Setenv("OPENAI_API_KEY", "example-key")
			t.Setenv("TF_VAR_assistant_token", "example-token")
			example, err := os.ReadFile(filepath.Join("..", "..", "examples", "resources", name, "resource.tf"))
			if err != nil {
				t.Fatal(err)
			}
			unitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: memoryFactories(t),
				Steps: []resource.TestStep{{
					Config:             string(example),
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
				}},
			})
		})
	}
}
