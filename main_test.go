package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuietLogs(t *testing.T) {
	off := map[string]string{"TF_LOG_SDK": "off", "TF_LOG_SDK_FRAMEWORK": "off", "TF_LOG_SDK_PROTO": "off", "TF_LOG_PROVIDER_A2A": "off"}
	tests := []struct {
		name    string
		environ []string
		want    map[string]string
	}{
		{"nothing asks", []string{"PATH=/bin", "TF_LOG_PATH=/tmp/tf.log", "TF_LOG_CORE=trace"}, off},
		{"empty values ask nothing", []string{"TF_LOG=", "TF_LOG_PROVIDER="}, off},
		{"TF_LOG", []string{"TF_LOG=trace"}, nil},
		{"TF_LOG_PROVIDER", []string{"TF_LOG_PROVIDER=debug"}, nil},
		{"this provider's own", []string{"TF_LOG_PROVIDER_A2A=info"}, nil},
		{"the SDK's", []string{"TF_LOG_SDK_PROTO=trace"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := quietLogs(tt.environ); !maps.Equal(got, tt.want) {
				t.Errorf("quietLogs(%q) = %v, want %v", tt.environ, got, tt.want)
			}
		})
	}
}

// TestHostMoved: whoever still runs `terraform-provider-a2a run` learns
// that the host is a2a-agent-host and where this provider looks for it.
func TestHostMoved(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	got := hostMoved()
	for _, want := range []string{`"run" is no longer a subcommand`, filepath.Join(filepath.Dir(self), "a2a-agent-host"),
		"a2a-agent-host --config agent.toml"} {
		if !strings.Contains(got, want) {
			t.Errorf("hostMoved() = %q, want it to say %q", got, want)
		}
	}
}
