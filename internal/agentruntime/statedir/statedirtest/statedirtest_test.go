package statedirtest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestLeftovers(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"empty", nil, nil},
		{"lock and allowlists are the state dir's own", []string{".lock", "allowlists/team.json"}, nil},
		{"anything else is left over", []string{
			".lock", ".locks/agent-a.lock", "local/agents/a.json", "local/logs/.a.log.tmp-1", "allowlists/nested/x.json",
		}, []string{".locks/agent-a.lock", "allowlists/nested/x.json", "local/agents/a.json", "local/logs/.a.log.tmp-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(root, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Leftovers(root)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Leftovers = %q, want %q", got, tt.want)
			}
		})
	}
	if got, err := Leftovers(filepath.Join(t.TempDir(), "missing")); err != nil || len(got) != 0 {
		t.Errorf("Leftovers of a missing dir = %q, %v; want none", got, err)
	}
}
