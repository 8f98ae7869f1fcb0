package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	providerschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/container"
)

func TestStringValidators(t *testing.T) {
	tests := []struct {
		name      string
		validator validator.String
		value     types.String
		want      string // "" expects the value accepted
	}{
		{"slug accepted", slugValidator(), types.StringValue("team-secrets"), ""},
		{"slug empty", slugValidator(), types.StringValue(""), "The name is empty"},
		{"slug with a suggestion", slugValidator(), types.StringValue("Team Secrets"), `(try "team-secrets")`},
		{"slug null passes", slugValidator(), types.StringNull(), ""},
		{"slug unknown passes", slugValidator(), types.StringUnknown(), ""},
		{"duration accepted", durationValidator(), types.StringValue("1m30s"), ""},
		{"duration without unit", durationValidator(), types.StringValue("10"), `"10" is not a duration`},
		{"duration zero", durationValidator(), types.StringValue("0s"), "must be greater than zero"},
		{"env name accepted", envNameValidator(), types.StringValue("API_KEY"), ""},
		{"env name with a dash", envNameValidator(), types.StringValue("API-KEY"), `"API-KEY" must be an environment variable name`},
		{"write-only name of the operator's", notOwnedValidator(), types.StringValue("API_KEY"), ""},
		{"write-only name the runtime sets", notOwnedValidator(), types.StringValue("PORT"), `"PORT": the name must not be HOST, PORT, A2A_ADVERTISED_URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp validator.StringResponse
			tt.validator.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("x"), ConfigValue: tt.value}, &resp)
			switch {
			case tt.want == "" && resp.Diagnostics.HasError():
				t.Errorf("rejected: %v", resp.Diagnostics)
			case tt.want != "" && (!resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics[0].Detail(), tt.want)):
				t.Errorf("diagnostics %v, want an error containing %q", resp.Diagnostics, tt.want)
			}
		})
	}
}

// TestContainerSettingValidators runs the validators the provider schema
// gives each container setting: each refuses what the adapter or engine
// would refuse, and passes null and unknown values, which are checked
// again once known.
func TestContainerSettingValidators(t *testing.T) {
	str, i64, f64 := types.StringValue, types.Int64Value, types.Float64Value
	tests := []struct {
		attribute string // under container
		value     attr.Value
		want      string // "" expects the value accepted
	}{
		{"host", str("unix:///var/run/docker.sock"), ""},
		{"host", str("tcp://127.0.0.1:2376"), ""},
		{"host", str("ssh://deploy@engine.example.com"), ""},
		{"host", str("npipe:////./pipe/docker_engine"), ""},
		{"host", str("http://nowhere"), "write tcp:// instead of http://"},
		{"host", str("tcp://nowhere"), "names no port"},
		{"host", str("unix://docker.sock"), "absolute path"},
		{"host", str(""), "has no scheme"},
		{"host", types.StringNull(), ""},
		{"host", types.StringUnknown(), ""},

		{"base_image", str("registry.example.com/team/agent:1.2"), ""},
		{"base_image", str("Not An Image"), "is not an image reference"},
		{"base_image", types.StringUnknown(), ""},

		{"advertise_host", str("127.0.0.1"), ""},
		{"advertise_host", str("::1"), ""},
		{"advertise_host", str("agents.example.com"), ""},
		{"advertise_host", str("not a host!!"), "neither an IP address nor a host name"},
		{"advertise_host", str("[::1]"), "without brackets"},
		{"advertise_host", str(""), "empty"},
		{"advertise_host", types.StringUnknown(), ""},

		{"network", str("bridge"), ""},
		{"network", str("agents_net.v2"), ""},
		{"network", str("no such network"), "must be a network name"},
		{"network", str("container:web"), "must be a network name"},
		{"network", str("host"), "must be none of"},
		{"network", str("none"), "must be none of"},
		{"network", types.StringUnknown(), ""},

		{"restart_policy", str("unless-stopped"), ""},
		{"restart_policy", str("on-failure"), ""},
		{"restart_policy", str("sometimes"), "must be one of"},

		{"hardening.user", str("65534:65534"), ""},
		{"hardening.user", str("nobody"), ""},
		{"hardening.user", str(""), ""},
		{"hardening.user", str("a:b:c"), "must be a uid or user name"},
		{"hardening.user", str("1000:"), "must be a uid or user name"},
		{"hardening.user", types.StringUnknown(), ""},

		{"hardening.pids_limit", i64(0), ""},
		{"hardening.pids_limit", i64(512), ""},
		{"hardening.pids_limit", i64(-1), "at least 0"},
		{"hardening.pids_limit", types.Int64Unknown(), ""},

		{"hardening.memory_mb", i64(0), ""},
		{"hardening.memory_mb", i64(6), ""},
		{"hardening.memory_mb", i64(1024), ""},
		{"hardening.memory_mb", i64(3), "at least 6"},
		{"hardening.memory_mb", i64(-1), "at least 6"},
		{"hardening.memory_mb", i64(container.MaxMemoryMB + 1), "at most"},
		{"hardening.memory_mb", types.Int64Unknown(), ""},

		{"hardening.cpus", f64(0), ""},
		{"hardening.cpus", f64(0.01), ""},
		{"hardening.cpus", f64(2.5), ""},
		{"hardening.cpus", f64(0.001), "at least 0.010000"},
		{"hardening.cpus", f64(-1), "at least 0.010000"},
		{"hardening.cpus", types.Float64Unknown(), ""},
	}
	var schemaResp provider.SchemaResponse
	(&a2aProvider{}).Schema(context.Background(), provider.SchemaRequest{}, &schemaResp)
	block := schemaResp.Schema.Blocks["container"].(providerschema.SingleNestedBlock)
	hardening := block.Blocks["hardening"].(providerschema.SingleNestedBlock)
	for _, tt := range tests {
		t.Run(tt.attribute+" "+tt.value.String(), func(t *testing.T) {
			p, attributes, name := path.Root("container"), block.Attributes, tt.attribute
			if rest, ok := strings.CutPrefix(name, "hardening."); ok {
				p, attributes, name = p.AtName("hardening"), hardening.Attributes, rest
			}
			a, ok := attributes[name]
			if !ok {
				t.Fatalf("the container block has no attribute %s", tt.attribute)
			}
			diags := validateAttribute(a, p.AtName(name), tt.value)
			var text string
			for _, d := range diags {
				text += d.Summary() + ": " + d.Detail() + "\n"
			}
			switch {
			case tt.want == "" && diags.HasError():
				t.Errorf("rejected: %s", text)
			case tt.want != "" && (!diags.HasError() || !strings.Contains(text, tt.want)):
				t.Errorf("diagnostics %q, want an error containing %q", text, tt.want)
			}
			for _, d := range diags {
				if wp, ok := d.(diag.DiagnosticWithPath); !ok || !wp.Path().Equal(p.AtName(name)) {
					t.Errorf("diagnostic %q is not at %s", d.Summary(), p.AtName(name))
				}
			}
		})
	}
}

// validateAttribute runs the schema validators of attribute a at p on v.
func validateAttribute(a providerschema.Attribute, p path.Path, v attr.Value) diag.Diagnostics {
	ctx := context.Background()
	var diags diag.Diagnostics
	switch a := a.(type) {
	case providerschema.StringAttribute:
		for _, vd := range a.Validators {
			var resp validator.StringResponse
			vd.ValidateString(ctx, validator.StringRequest{Path: p, PathExpression: p.Expression(), ConfigValue: v.(types.String)}, &resp)
			diags.Append(resp.Diagnostics...)
		}
	case providerschema.Int64Attribute:
		for _, vd := range a.Validators {
			var resp validator.Int64Response
			vd.ValidateInt64(ctx, validator.Int64Request{Path: p, PathExpression: p.Expression(), ConfigValue: v.(types.Int64)}, &resp)
			diags.Append(resp.Diagnostics...)
		}
	case providerschema.Float64Attribute:
		for _, vd := range a.Validators {
			var resp validator.Float64Response
			vd.ValidateFloat64(ctx, validator.Float64Request{Path: p, PathExpression: p.Expression(), ConfigValue: v.(types.Float64)}, &resp)
			diags.Append(resp.Diagnostics...)
		}
	default:
		diags.AddError("untested attribute type", fmt.Sprintf("%T", a))
	}
	return diags
}
