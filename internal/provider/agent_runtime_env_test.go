package provider

import (
	"slices"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

func TestKeptWriteOnly(t *testing.T) {
	raw := []byte("[agent]\nname = \"k\"\ndescription = \"${KEY} ${KEY} ${OTHER}\"\n")
	kept := runtimeEnv{WriteOnly: []string{"KEY", "UNUSED"}}
	tests := []struct {
		name string
		wo   writeOnly
		want []string
	}{
		{"env_wo not set: the referenced kept names", writeOnly{known: true, seen: kept}, []string{"KEY"}},
		{"env_wo set: its own names rule", writeOnly{known: true, values: agentruntime.WriteOnlyValues{"KEY": "v"}, seen: kept}, nil},
		{"env_wo set but empty", writeOnly{known: true, values: agentruntime.WriteOnlyValues{}, seen: kept}, nil},
		{"env_wo not known yet", writeOnly{known: false, seen: kept}, nil},
		{"nothing kept", writeOnly{known: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keptWriteOnly(tt.wo, raw); !slices.Equal(got, tt.want) {
				t.Errorf("keptWriteOnly = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStillInjected(t *testing.T) {
	tests := []struct {
		changed, injected, want []string
	}{
		{nil, []string{"A"}, nil},
		{[]string{"A"}, []string{"A", "B"}, []string{"A"}},
		{[]string{"A", "C"}, []string{"B", "C"}, []string{"C"}},
		{[]string{"A"}, nil, nil},
	}
	for _, tt := range tests {
		if got := stillInjected(tt.changed, tt.injected); !slices.Equal(got, tt.want) {
			t.Errorf("stillInjected(%v, %v) = %v, want %v", tt.changed, tt.injected, got, tt.want)
		}
	}
}

func TestEnvWOFill(t *testing.T) {
	if got, want := envWOFill([]string{"A", "B"}), "env_wo = { A = <value>, B = <value> }"; got != want {
		t.Errorf("envWOFill = %q, want %q", got, want)
	}
}
