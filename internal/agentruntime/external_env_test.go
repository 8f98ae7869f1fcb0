package agentruntime

import (
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/launch"
)

func TestBroughtLookup(t *testing.T) {
	t.Setenv("ALLOWED", "from-env")
	t.Setenv("NOT_ALLOWED", "secret")
	t.Setenv("PORT", "from-env")
	t.Setenv("HOST", "from-env")
	lookup := BroughtLookup(
		launch.Owned{Host: "0.0.0.0", Port: 8080, AdvertisedURL: "http://agent:9000"},
		[]string{"ALLOWED", "PORT", "HOST", "UNSET"},
	)
	tests := []struct {
		name, want string
		found      bool
	}{
		{"PORT", "8080", true}, // the runtime's own values, never the environment's
		{"HOST", "0.0.0.0", true},
		{"A2A_ADVERTISED_URL", "http://agent:9000", true},
		{"ALLOWED", "from-env", true}, // allowlisted and set
		{"NOT_ALLOWED", "", false},    // set, but not allowlisted
		{"UNSET", "", false},          // allowlisted, but not set
	}
	for _, tt := range tests {
		got, found := lookup(tt.name)
		if got != tt.want || found != tt.found {
			t.Errorf("lookup(%s) = %q, %v; want %q, %v", tt.name, got, found, tt.want, tt.found)
		}
	}
}
