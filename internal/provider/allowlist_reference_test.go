package provider

import (
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestParseAllowlist(t *testing.T) {
	tests := []struct {
		value   string
		name    string
		planned []string // nil: a bare name
		mark    string
		wantErr bool
	}{
		{value: "team", name: "team"},
		{value: allowlistReference("team", []string{"B", "A"}, ""), name: "team", planned: []string{"A", "B"}},
		{value: allowlistReference("team", nil, ""), name: "team", planned: []string{}},
		{value: allowlistReference("team", []string{"A"}, stateDirMark("/var/lib/a2a")), name: "team", planned: []string{"A"},
			mark: stateDirMark("/var/lib/a2a")},
		{value: "team:A@", wantErr: true},
		{value: "team:A@not-a-mark", wantErr: true},
		{value: "Team", wantErr: true},
		{value: ":A", wantErr: true},
		{value: "team:A,1B", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got, err := parseAllowlist(tt.value)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseAllowlist(%q) error = %v, want error %v", tt.value, err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got.name != tt.name || allowlistName(types.StringValue(tt.value)) != tt.name {
				t.Errorf("name = %q, want %q", got.name, tt.name)
			}
			if got.stateDirMark != tt.mark {
				t.Errorf("state dir mark = %q, want %q", got.stateDirMark, tt.mark)
			}
			switch {
			case tt.planned == nil && got.planned != nil:
				t.Errorf("planned = %+v, want none for a bare name", got.planned)
			case tt.planned != nil && (got.planned == nil || !reflect.DeepEqual(got.planned.Variables, tt.planned)):
				t.Errorf("planned = %+v, want variables %v", got.planned, tt.planned)
			}
		})
	}
}
