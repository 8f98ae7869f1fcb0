package agentruntime

import "testing"

func TestExternalLookup(t *testing.T) {
	t.Setenv("ALLOWED", "from-env")
	t.Setenv("NOT_ALLOWED", "secret")
	t.Setenv("PORT", "from-env")
	lookup := ExternalLookup(
		map[string]string{"PORT": "8080"},
		[]string{"ALLOWED", "PORT", "UNSET"},
	)
	tests := []struct {
		name, want string
		found      bool
	}{
		{"PORT", "8080", true},        // the runtime's own value, never the environment's
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
