// Package statedirtest inspects a state dir for tests of the adapters and
// the provider that use it.
package statedirtest

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// Open opens the state dir at path for a test, failing the test when it
// cannot.
func Open(t testing.TB, path string) *statedir.Dir {
	t.Helper()
	d, err := statedir.Open(path)
	if err != nil {
		t.Fatalf("open state dir %s: %v", path, err)
	}
	return d
}

// Leftovers returns, relative to root and sorted, every file under the
// state dir root except the state dir's own lock and id files and env allowlists:
// what agents leave behind. Once every agent is deprovisioned it must be
// empty. A missing root holds nothing.
func Leftovers(root string) ([]string, error) {
	var left []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel == ".lock" || rel == ".id" || filepath.Dir(rel) == "allowlists" {
			return nil
		}
		left = append(left, rel)
		return nil
	})
	return left, err
}
