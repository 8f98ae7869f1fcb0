// Package statedir is the runtime core's durable store: a private directory
// whose files are written atomically and whose mutations are serialised,
// across processes, by a file lock.
package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// EnvVar overrides the default location of the state dir.
const EnvVar = "A2A_STATE_DIR"

// appName names the directory under the user's state home.
const appName = "terraform-provider-a2a"

// Default returns the state dir to use when the provider block names none:
// $A2A_STATE_DIR, else $XDG_STATE_HOME/terraform-provider-a2a, else
// ~/.local/state/terraform-provider-a2a.
func Default() (string, error) {
	if p := os.Getenv(EnvVar); p != "" {
		return p, nil
	}
	if p := os.Getenv("XDG_STATE_HOME"); p != "" {
		return filepath.Join(p, appName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot choose a state dir: %w; set state_dir in the provider block or %s", err, EnvVar)
	}
	return filepath.Join(home, ".local", "state", appName), nil
}

// Dir is an open state dir. It is safe for concurrent use by goroutines and,
// through Lock, by processes.
type Dir struct {
	path string
	// inProcess serialises this process's holders of each lock without
	// polling; the file lock then serialises processes.
	mu        sync.Mutex
	inProcess map[string]chan struct{}
	// creators holds, by key, the creator locks this process holds
	// (creator.go).
	creators sync.Map
}

// Open opens the state dir, creating it 0700 if it does not exist. An
// existing directory is never changed: one that others may reach, or that
// is not the user's own, is refused, since the state dir holds agent
// configs and records the provider trusts, and its owner decides whether to
// tighten it or to choose another.
func Open(path string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("state dir path is empty; set state_dir in the provider block or " + EnvVar)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("state dir %s: %w", path, err)
	}
	if err := create(abs); err != nil {
		return nil, err
	}
	if err := checkPrivate(abs); err != nil {
		return nil, err
	}
	return &Dir{path: abs, inProcess: map[string]chan struct{}{}}, nil
}

// create makes the state dir 0700 (whatever the umask) unless it exists.
func create(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create the parent of state dir %s: %w", path, err)
	}
	err := os.Mkdir(path, 0o700)
	if errors.Is(err, fs.ErrExist) {
		return nil // another directory, or a concurrent Open's: checked next
	}
	if err != nil {
		return fmt.Errorf("create state dir %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o700); err != nil {
		return fmt.Errorf("set the mode of state dir %s to 0700: %w", path, err)
	}
	return nil
}

// checkPrivate refuses a state dir that is not a directory, that is not
// the user's own, or that users other than its owner may read or enter:
// its mode lets them, and no directory above it keeps them out.
func checkPrivate(path string) error {
	info, err := ownDir(path)
	if err != nil {
		return err
	}
	mode := info.Mode().Perm()
	if mode&0o077 == 0 {
		return nil
	}
	fenced, err := fencedAbove(path)
	if err != nil {
		return fmt.Errorf("state dir %s: %w", path, err)
	}
	if fenced {
		return nil
	}
	return fmt.Errorf("state dir %s has mode %04o, open to users other than its owner, and it holds agent configs: "+
		"run `chmod 700 %s` or point state_dir at another directory (a new one is created with mode 0700)", path, mode, path)
}

// fencedAbove reports whether a directory above path (symbolic links
// resolved) bars group and others from passing through, so that they
// cannot reach path whatever its own mode.
func fencedAbove(path string) (bool, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false, err
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		info, err := os.Stat(dir)
		if err != nil {
			return false, err
		}
		if info.Mode().Perm()&0o011 == 0 {
			return true, nil
		}
		if parent := filepath.Dir(dir); parent == dir {
			return false, nil
		}
	}
}

// Path returns the absolute path of the state dir.
func (d *Dir) Path() string { return d.path }

// MkdirAll creates the subdirectory rel, 0700, and the directories above
// it, or checks them where they exist.
func (d *Dir) MkdirAll(rel string) error {
	_, err := d.checkedDir(rel, true)
	return err
}

// Join returns the absolute path of rel inside the state dir.
func (d *Dir) Join(rel ...string) string {
	return filepath.Join(append([]string{d.path}, rel...)...)
}

// WriteFile replaces rel with data atomically: readers see the old file or
// the new one, never a part, and a crash leaves no partial file behind.
// Files are 0600 and parent directories 0700; the file replaced, whatever
// it was, is not followed or written to.
func (d *Dir) WriteFile(rel string, data []byte) error {
	dir, err := d.write(rel, data, true)
	if err != nil {
		return err
	}
	return syncDir(dir)
}

// WriteFileSyncLater replaces rel like WriteFile, except that the rename
// is made durable only by the sync it returns: readers see the new file at
// once, and until sync has run a machine crash may bring back the old one
// (never a part of either). It serves a writer that publishes the file
// under a lock others wait for: it lets the lock go before it waits for
// the disk a second time, and syncs before anything relies on the file
// surviving a crash.
func (d *Dir) WriteFileSyncLater(rel string, data []byte) (sync func() error, err error) {
	dir, err := d.write(rel, data, true)
	if err != nil {
		return nil, err
	}
	return func() error { return syncDir(dir) }, nil
}

// WriteFileUnsynced replaces rel atomically like WriteFile but does not
// wait for the disk: for facts that matter only while the machine is up
// (what runs now), where a sync per write would cost more than the fact is
// worth. After a machine crash the file may hold old content or none.
func (d *Dir) WriteFileUnsynced(rel string, data []byte) error {
	_, err := d.write(rel, data, false)
	return err
}

// write replaces rel with data through a temporary file, synced first when
// durable, and returns the directory to sync for the rename to last.
func (d *Dir) write(rel string, data []byte, durable bool) (string, error) {
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("write: %s %w", rel, errNotLocal)
	}
	path := d.Join(rel)
	dir, err := d.checkedDir(filepath.Dir(rel), true)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			_ = tmp.Close()
			return "", fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("replace %s: %w", path, err)
	}
	return dir, nil
}

// syncDir makes a rename durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer func() { _ = f.Close() }()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// Remove deletes rel (a link itself, not what it names); a missing file is
// success.
func (d *Dir) Remove(rel string) error {
	_, err := d.checkedDir(filepath.Dir(rel), false)
	if err == nil {
		err = os.Remove(d.Join(rel))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", d.Join(rel), err)
	}
	return nil
}

// Names lists, sorted, the files of subdir rel ending in suffix, with the
// suffix cut off. A missing subdir has no names.
func (d *Dir) Names(rel, suffix string) ([]string, error) {
	dir, err := d.checkedDir(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", d.Join(rel), err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && !strings.HasPrefix(n, ".") && strings.HasSuffix(n, suffix) {
			names = append(names, strings.TrimSuffix(n, suffix))
		}
	}
	sort.Strings(names)
	return names, nil
}
