package writeonly

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// Store keeps one file per agent in a subdirectory of the state dir: 0600
// in a 0700 directory, apart from the agent's record and config, so that
// the agent can restart with its values without Terraform.
type Store struct {
	dir *statedir.Dir
	sub string
}

// NewStore keeps files under sub of dir.
func NewStore(dir *statedir.Dir, sub string) Store { return Store{dir: dir, sub: sub} }

func (s Store) rel(id string) string { return path.Join(s.sub, id+".json") }

// valid reports whether id is an agent id, and so names a file of the
// store and nothing outside it.
func valid(id string) bool { return id != "" && agentconfig.Slug(id) == id }

// Put replaces the agent's values; no values removes the file.
func (s Store) Put(id string, values map[string]string) error {
	if !valid(id) {
		return fmt.Errorf("store write-only values: %q is not an agent id", id)
	}
	if len(values) == 0 {
		return s.Remove(id)
	}
	data, err := Encode(values)
	if err != nil {
		return err
	}
	return s.dir.WriteFile(s.rel(id), data)
}

// Path returns the file of the agent, and whether it has one: a file of
// the user's own, not a link, as the state dir checks every file.
func (s Store) Path(id string) (string, bool, error) {
	if !valid(id) {
		return "", false, nil
	}
	p := s.dir.Join(s.rel(id))
	_, err := s.dir.Stat(s.rel(id))
	switch {
	case err == nil:
		return p, true, nil
	case errors.Is(err, fs.ErrNotExist):
		return p, false, nil
	default:
		return p, false, err
	}
}

// Remove deletes the agent's file; none is success.
func (s Store) Remove(id string) error {
	if !valid(id) {
		return nil
	}
	return s.dir.Remove(s.rel(id))
}
