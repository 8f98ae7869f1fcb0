package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

const literalTokenConfig = "[agent]\nname = \"Leaky\"\n[auth]\nbearer_token = \"hunter2-literal\"\n"

func TestLiteralSecretWarnings(t *testing.T) {
	tests := []struct {
		name   string
		config string
		want   []string // the settings warned about, in order
	}{
		{"no secrets", "[agent]\nname = \"A\"\n", nil},
		{"bearer token literal", literalTokenConfig, []string{"[auth] bearer_token"}},
		{"bearer token reference", "[agent]\nname = \"A\"\n[auth]\nbearer_token = \"${TOKEN}\"\n", nil},
		{"reference with a default is a literal", "[agent]\nname = \"A\"\n[auth]\nbearer_token = \"${TOKEN:-fallback}\"\n", []string{"[auth] bearer_token"}},
		{"reference inside text is a literal", "[agent]\nname = \"A\"\n[auth]\nbearer_token = \"Bearer ${TOKEN}\"\n", []string{"[auth] bearer_token"}},
		{"api key literal", "[agent]\nname = \"A\"\n[handler]\ntype = \"llm\"\n[handler.llm]\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\napi_key = \"sk-literal\"\n", []string{"[handler.llm] api_key"}},
		{"api key reference", "[agent]\nname = \"A\"\n[handler]\ntype = \"llm\"\n[handler.llm]\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\napi_key = \"${KEY}\"\n", nil},
		{"signing key reference", "[agent]\nname = \"A\"\n[card]\nsigning_key = \"${SIGNING_KEY}\"\n", nil},
		{"collector credentials literal, other headers not secrets", "[agent]\nname = \"A\"\n[telemetry]\notlp_endpoint = \"http://127.0.0.1:4318\"\n" +
			"[telemetry.otlp_headers]\nAuthorization = \"Bearer hunter2\"\nX-Api-Key = \"${KEY}\"\nX-Scope-OrgID = \"tenant\"\n", []string{"[telemetry.otlp_headers] Authorization"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := agentconfig.Parse([]byte(tt.config))
			if err != nil {
				t.Fatal(err)
			}
			diags := literalSecretWarnings(cfg)
			if len(diags) != len(tt.want) {
				t.Fatalf("got %d diagnostics, want %d: %v", len(diags), len(tt.want), diags)
			}
			for i, d := range diags {
				if d.Severity() != diag.SeverityWarning || !strings.HasPrefix(d.Detail(), tt.want[i]+" is a literal") {
					t.Errorf("diagnostic %d = %s %q, want a warning about %s", i, d.Severity(), d.Detail(), tt.want[i])
				}
				// Terraform interpolates ${...} in a heredoc, so the warning
				// must give the escaped form for inline configs too.
				if tt.want[i] == "[auth] bearer_token" && (!strings.Contains(d.Detail(), `bearer_token = "$${AGENT_BEARER_TOKEN}" in a config written inline`) ||
					!strings.Contains(d.Detail(), `bearer_token = "${AGENT_BEARER_TOKEN}" in a config read with file()`)) {
					t.Errorf("the warning does not give both the heredoc and the file() form: %q", d.Detail())
				}
				for _, secret := range []string{"hunter2", "fallback", "sk-literal", "Bearer"} {
					if strings.Contains(d.Detail(), secret) {
						t.Errorf("the warning repeats the secret: %q", d.Detail())
					}
				}
			}
		})
	}
}

// TestValidateConfig_literalSecret proves both places that take a config
// warn at validation, before anything is planned or stored.
func TestValidateConfig_literalSecret(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		validate func() diag.Diagnostics
	}{
		{"a2a_agent", func() diag.Diagnostics {
			r := &agentResource{}
			var s resource.SchemaResponse
			r.Schema(ctx, resource.SchemaRequest{}, &s)
			var resp resource.ValidateConfigResponse
			r.ValidateConfig(ctx, resource.ValidateConfigRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: configOnly(s.Schema.Type().TerraformType(ctx), literalTokenConfig)}}, &resp)
			return resp.Diagnostics
		}},
		{"a2a_agent_card", func() diag.Diagnostics {
			d := &agentCardDataSource{}
			var s datasource.SchemaResponse
			d.Schema(ctx, datasource.SchemaRequest{}, &s)
			var resp datasource.ValidateConfigResponse
			d.ValidateConfig(ctx, datasource.ValidateConfigRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: configOnly(s.Schema.Type().TerraformType(ctx), literalTokenConfig)}}, &resp)
			return resp.Diagnostics
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags := tt.validate()
			if diags.HasError() || diags.WarningsCount() != 1 || !strings.Contains(diags.Warnings()[0].Detail(), "[auth] bearer_token is a literal") {
				t.Fatalf("diagnostics %v, want one warning about [auth] bearer_token", diags)
			}
		})
	}
}

// configOnly is a configuration of a schema of type typ with only `config`
// set.
func configOnly(typ tftypes.Type, config string) tftypes.Value {
	obj := typ.(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, attrType := range obj.AttributeTypes {
		values[name] = tftypes.NewValue(attrType, nil)
	}
	values["config"] = tftypes.NewValue(tftypes.String, config)
	return tftypes.NewValue(obj, values)
}
