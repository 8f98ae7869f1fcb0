// Package statedirtest inspects a state dir for tests of the adapters and
// the provider that use it.
package statedirtest

import (
	"errors"
	"io/fs"
	"path/filepath"
)

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
