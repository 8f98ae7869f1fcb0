package statedir

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDefault(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, stateDir, xdg, want string
	}{
		{"explicit env wins", "/srv/a2a", "/xdg", "/srv/a2a"},
		{"xdg state home", "", "/xdg", "/xdg/terraform-provider-a2a"},
		{"home fallback", "", "", filepath.Join(home, ".local", "state", "terraform-provider-a2a")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvVar, tt.stateDir)
			t.Setenv("XDG_STATE_HOME", tt.xdg)
			got, err := Default()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Default() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOpenMode checks that Open makes the directories it creates private
// and leaves an existing directory as it found it, refusing one that others
// can reach, such as a Terraform configuration's own directory.
func TestOpenMode(t *testing.T) {
	tests := []struct {
		name string
		// path makes what the state dir path names under root, a directory
		// every user may pass through, and returns that path.
		path func(t *testing.T, root string) string
		// wantErr lists what the error must say besides the path; empty
		// for success.
		wantErr []string
	}{
		{"created", func(_ *testing.T, root string) string { return filepath.Join(root, "state") }, nil},
		{"created with its parents", func(_ *testing.T, root string) string { return filepath.Join(root, "a", "b", "state") }, nil},
		{"existing private", func(t *testing.T, root string) string { return mkdir(t, root, "state", 0o700) }, nil},
		{"existing owner-only read", func(t *testing.T, root string) string { return mkdir(t, root, "state", 0o500) }, nil},
		{"existing world readable", func(t *testing.T, root string) string { return mkdir(t, root, "state", 0o755) },
			[]string{"mode 0755", "chmod 700", "state_dir"}},
		{"existing group writable", func(t *testing.T, root string) string { return mkdir(t, root, "state", 0o770) },
			[]string{"mode 0770", "chmod 700"}},
		{"existing others enter only", func(t *testing.T, root string) string { return mkdir(t, root, "state", 0o701) },
			[]string{"mode 0701", "chmod 700"}},
		{"existing world readable in a private directory", func(t *testing.T, root string) string {
			return mkdir(t, mkdir(t, root, "private", 0o700), "state", 0o755)
		}, nil},
		{"existing world readable in a group-passable directory", func(t *testing.T, root string) string {
			return mkdir(t, mkdir(t, root, "team", 0o750), "state", 0o755)
		}, []string{"mode 0755", "chmod 700"}},
		{"existing world readable, linked to from a private directory", func(t *testing.T, root string) string {
			target := mkdir(t, root, "state", 0o755)
			link := filepath.Join(mkdir(t, root, "private", 0o700), "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, []string{"mode 0755", "chmod 700"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t, passableDir(t))
			before, existed := modeOf(t, path)
			d, err := Open(path)
			after, _ := modeOf(t, path)
			switch {
			case len(tt.wantErr) > 0 && err == nil:
				t.Fatalf("Open of a directory with mode %04o succeeded, want refused", before)
			case len(tt.wantErr) > 0:
				for _, want := range append(tt.wantErr, path) {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("Open error %q does not say %q", err, want)
					}
				}
			case err != nil:
				t.Fatal(err)
			case d.Path() != path:
				t.Errorf("Path() = %s, want %s", d.Path(), path)
			}
			switch {
			case existed && after != before:
				t.Errorf("Open changed the mode of the existing %s from %04o to %04o", path, before, after)
			case !existed && after != 0o700:
				t.Errorf("Open created %s with mode %04o, want 0700", path, after)
			}
		})
	}
}

// passableDir returns a new directory that every user may pass through,
// as may they through every directory above it.
func passableDir(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	// The test's temporary directories share a parent private to its owner.
	for _, dir := range []string{root, filepath.Dir(root)} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if fenced, err := fencedAbove(root); err != nil || fenced {
		t.Fatalf("a directory above %s bars other users (%v); run the tests with TMPDIR in a directory everyone may pass through, such as /tmp", root, err)
	}
	return root
}

// mkdir makes dir/name with mode and returns its path.
func mkdir(t *testing.T, dir, name string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// modeOf returns the permissions of the directory at path, following
// links, and whether it exists.
func modeOf(t *testing.T, path string) (os.FileMode, bool) {
	t.Helper()
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm(), true
}

func TestOpenRefusesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil {
		t.Fatal("Open of a regular file succeeded")
	}
}

func TestWriteFile(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i, content := range []string{"first", "second, longer than the first"} {
		if err := d.WriteFile("sub/dir/f.json", []byte(content)); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		got, err := d.ReadFile("sub/dir/f.json")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Errorf("read %q, want %q", got, content)
		}
	}
	info, err := os.Stat(d.Join("sub/dir/f.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("file mode = %04o, want 0600", got)
	}
	parent, err := os.Stat(d.Join("sub/dir"))
	if err != nil {
		t.Fatal(err)
	}
	if got := parent.Mode().Perm(); got != 0o700 {
		t.Errorf("parent mode = %04o, want 0700", got)
	}
	entries, err := os.ReadDir(d.Join("sub/dir"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only f.json (temp files must not linger)", len(entries))
	}
	if err := d.Remove("sub/dir/f.json"); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove("sub/dir/f.json"); err != nil {
		t.Errorf("second Remove: %v, want success", err)
	}
	if _, err := d.ReadFile("sub/dir/f.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile after Remove: %v, want not exist", err)
	}
}

// TestWriteFileSyncLater: the new file is what readers see before its
// sync runs, whole, with no temporary file beside it; the sync reports a
// directory it cannot make durable.
func TestWriteFileSyncLater(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("later/f.json", []byte("old")); err != nil {
		t.Fatal(err)
	}
	sync, err := d.WriteFileSyncLater("later/f.json", []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := d.ReadFile("later/f.json"); err != nil || string(got) != "new" {
		t.Errorf("before the sync, read %q, %v; want the new file", got, err)
	}
	if entries, err := os.ReadDir(d.Join("later")); err != nil || len(entries) != 1 {
		t.Errorf("directory holds %d entries (%v), want only f.json", len(entries), err)
	}
	if err := sync(); err != nil {
		t.Errorf("sync: %v", err)
	}
	sync, err = d.WriteFileSyncLater("gone/f.json", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(d.Join("gone")); err != nil {
		t.Fatal(err)
	}
	if err := sync(); err == nil {
		t.Error("sync of a directory removed meanwhile succeeded, want an error")
	}
}

func TestNames(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"x/b.json", "x/a.json", "x/c.txt"} {
		if err := d.WriteFile(f, []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	got, err := d.Names("x", ".json")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("Names = %v, want [a b]", got)
	}
	if got, err := d.Names("missing", ".json"); err != nil || len(got) != 0 {
		t.Errorf("Names of a missing dir = %v, %v; want none", got, err)
	}
}

// TestLockExcludes runs read-modify-write cycles through two Dir values on
// one path, as two provider processes would (each holds its own open file,
// so only the file lock keeps them apart), and checks that none is lost.
func TestLockExcludes(t *testing.T) {
	path := t.TempDir()
	dirs := make([]*Dir, 2)
	for i := range dirs {
		d, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		dirs[i] = d
	}
	const perDir = 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*perDir)
	for _, d := range dirs {
		for range perDir {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- increment(d)
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := dirs[0].ReadFile("counter")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); got != strconv.Itoa(2*perDir) {
		t.Errorf("counter = %s, want %d: increments were lost", got, 2*perDir)
	}
}

func increment(d *Dir) error {
	unlock, err := d.Lock(context.Background())
	if err != nil {
		return err
	}
	defer unlock()
	n := 0
	if data, err := d.ReadFile("counter"); err == nil {
		if n, err = strconv.Atoi(string(data)); err != nil {
			return err
		}
	}
	return d.WriteFile("counter", []byte(strconv.Itoa(n+1)))
}

func TestLockHonoursContext(t *testing.T) {
	path := t.TempDir()
	holder, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := holder.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]*Dir{"same dir value": holder, "other dir value": other} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		if _, err := d.Lock(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: Lock while held = %v, want deadline exceeded", name, err)
		}
		cancel()
	}
	unlock()
	again, err := other.Lock(context.Background())
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	again()
}

func TestLockKey(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lockA, err := d.LockKey(context.Background(), "agent-a")
	if err != nil {
		t.Fatal(err)
	}
	defer lockA.Unlock()
	lockB, err := d.LockKey(context.Background(), "agent-b")
	if err != nil {
		t.Fatalf("another key is blocked: %v", err)
	}
	lockB.Unlock()
	unlockAll, err := d.Lock(context.Background())
	if err != nil {
		t.Fatalf("the state dir lock is blocked by a key lock: %v", err)
	}
	unlockAll()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := d.LockKey(ctx, "agent-a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("LockKey of a held key = %v, want deadline exceeded", err)
	}
	for _, bad := range []string{"", "../escape", ".lock", "a/b"} {
		if _, err := d.LockKey(context.Background(), bad); err == nil {
			t.Errorf("LockKey(%q) succeeded, want refused", bad)
		}
	}
}
