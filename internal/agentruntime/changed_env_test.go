package agentruntime

import (
	"slices"
	"testing"
)

func TestChangedEnv(t *testing.T) {
	t.Setenv("A2A_TEST_SAME", "one")
	t.Setenv("A2A_TEST_CHANGED", "new")
	t.Setenv("A2A_TEST_SET_SINCE", "set")
	t.Setenv("A2A_TEST_EMPTY", "")
	running := map[string]string{
		"A2A_TEST_SAME":       "one",
		"A2A_TEST_CHANGED":    "old",
		"A2A_TEST_UNSET_NOW":  "was set",
		"A2A_TEST_EMPTY":      "",
		"A2A_TEST_NOT_PASSED": "x",
	}
	lookup := func(name string) (string, bool) { v, ok := running[name]; return v, ok }
	tests := []struct {
		name     string
		injected []string
		want     []string
	}{
		{"nothing injected", nil, nil},
		{"same value", []string{"A2A_TEST_SAME"}, nil},
		{"empty in both", []string{"A2A_TEST_EMPTY"}, nil},
		{"changed value", []string{"A2A_TEST_SAME", "A2A_TEST_CHANGED"}, []string{"A2A_TEST_CHANGED"}},
		{"unset since", []string{"A2A_TEST_UNSET_NOW"}, []string{"A2A_TEST_UNSET_NOW"}},
		{"set since", []string{"A2A_TEST_SET_SINCE"}, []string{"A2A_TEST_SET_SINCE"}},
		{"unset in both", []string{"A2A_TEST_NEVER_SET"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ChangedEnv(tt.injected, lookup); !slices.Equal(got, tt.want) {
				t.Errorf("ChangedEnv(%v) = %v, want %v", tt.injected, got, tt.want)
			}
		})
	}
}
