package statedir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIDMovesWithTheDir: the id is made once, kept, moves with the
// directory, and a new directory at the old path gets another.
func TestIDMovesWithTheDir(t *testing.T) {
	parent := t.TempDir()
	old := filepath.Join(parent, "state")
	d, err := Open(old)
	if err != nil {
		t.Fatal(err)
	}
	first, err := d.ID(t.Context())
	if err != nil || first == "" {
		t.Fatalf("ID() = %q, %v", first, err)
	}
	if again, _ := d.ID(t.Context()); again != first {
		t.Fatalf("ID changed from %q to %q", first, again)
	}
	moved := filepath.Join(parent, "moved")
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	m, err := Open(moved)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := m.ID(t.Context()); got != first {
		t.Errorf("moved dir has id %q, want %q", got, first)
	}
	n, err := Open(old)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := n.ID(t.Context()); got == first || got == "" {
		t.Errorf("new dir at the old path has id %q, want a new one", got)
	}
}
