package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
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
