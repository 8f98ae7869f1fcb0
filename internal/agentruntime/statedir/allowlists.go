package statedir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// allowlistDir holds one JSON file per env allowlist.
const allowlistDir = "allowlists"

// Allowlists stores env allowlists as JSON files in the state dir.
type Allowlists struct {
	dir *Dir
}

var _ agentruntime.AllowlistStore = (*Allowlists)(nil)

// NewAllowlists returns the allowlist store of dir.
func NewAllowlists(dir *Dir) *Allowlists { return &Allowlists{dir: dir} }

func allowlistFile(name string) string { return path.Join(allowlistDir, name+".json") }

// checkName keeps names usable as file names before any file is touched.
func checkName(op, name string) error {
	if name == "" || agentconfig.Slug(name) != name {
		return agentruntime.Errorf(agentruntime.KindInvalidConfig, op, "", nil,
			"env allowlist name %q must be lower-case letters, digits and single hyphens", name)
	}
	return nil
}

// Put validates and saves a, replacing an allowlist of the same name.
func (s *Allowlists) Put(ctx context.Context, a agentruntime.EnvAllowlist) error {
	if err := a.Validate(); err != nil {
		return err
	}
	a.Variables = slices.Compact(slices.Sorted(slices.Values(a.Variables)))
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("encode env allowlist %q: %w", a.Name, err)
	}
	unlock, err := s.dir.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return s.dir.WriteFile(allowlistFile(a.Name), data)
}

// Get returns the named allowlist, or an error of kind NotFound.
func (s *Allowlists) Get(_ context.Context, name string) (agentruntime.EnvAllowlist, error) {
	const op = "read env allowlist"
	if err := checkName(op, name); err != nil {
		return agentruntime.EnvAllowlist{}, err
	}
	data, err := s.dir.ReadFile(allowlistFile(name))
	if errors.Is(err, fs.ErrNotExist) {
		return agentruntime.EnvAllowlist{}, agentruntime.AllowlistNotFound(op, name)
	}
	if err != nil {
		return agentruntime.EnvAllowlist{}, agentruntime.Errorf(agentruntime.KindBackend, op, "", err, "env allowlist %q", name)
	}
	var a agentruntime.EnvAllowlist
	if err := json.Unmarshal(data, &a); err != nil {
		return agentruntime.EnvAllowlist{}, agentruntime.Errorf(agentruntime.KindBackend, op, "", err,
			"env allowlist %q in %s is corrupt; delete the file and apply again", name, s.dir.Join(allowlistFile(name)))
	}
	return a, nil
}

// Delete removes the named allowlist; an unknown name is success.
func (s *Allowlists) Delete(ctx context.Context, name string) error {
	if err := checkName("delete env allowlist", name); err != nil {
		return err
	}
	unlock, err := s.dir.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return s.dir.Remove(allowlistFile(name))
}
