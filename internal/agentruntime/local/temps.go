//go:build linux

package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// Atomic writes go through a temporary file beside the target, named
// ".<target>.tmp-<random>", renamed over the target when complete. A crash
// mid-write leaves the temporary file; it is removed with its agent, and by
// recovery.

// tempDirs are the directories holding agents' files.
var tempDirs = []string{recordDir, configDir, logDir}

// temps lists the temporary files of agent id, or of every agent when id
// is empty, as paths relative to the state dir.
func (r *Runtime) temps(id string) []string {
	var out []string
	for _, dir := range tempDirs {
		entries, err := os.ReadDir(r.dir.Join(dir))
		if err != nil {
			continue
		}
		for _, e := range entries {
			n := e.Name()
			if !strings.HasPrefix(n, ".") || !strings.Contains(n, ".tmp-") {
				continue
			}
			if id == "" || strings.HasPrefix(n, "."+id+".") {
				out = append(out, filepath.Join(dir, n))
			}
		}
	}
	return out
}

// removeTemps removes agent id's temporary files; the caller holds its lock.
func (r *Runtime) removeTemps(op, id string) error {
	for _, f := range r.temps(id) {
		if err := r.dir.Remove(f); err != nil {
			return agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
		}
	}
	return nil
}

// removeStrayTemps removes every agent's temporary files, each under its
// agent's lock so that no write in progress loses its file. The caller
// holds the state dir lock.
func (r *Runtime) removeStrayTemps(ctx context.Context, op string) error {
	seen := map[string]bool{}
	for _, f := range r.temps("") {
		id, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(f), "."), ".")
		if seen[id] || agentconfig.Slug(id) != id {
			continue
		}
		seen[id] = true
		lock, err := r.lockAgent(ctx, op, id)
		if err != nil {
			return err
		}
		err = r.removeTemps(op, id)
		if _, lerr := r.load(op, id); agentruntime.IsKind(lerr, agentruntime.KindNotFound) {
			// The temporary files were all that was left of the agent.
			err = errors.Join(err, r.removeLock(op, id, lock))
		}
		lock.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}
