//go:build unix

package statedir

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobody is the uid the tests give what another user made.
const nobody = 65534

// requireRoot skips a test that makes files owned by another user, which
// only root may do.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: only root can make the files of another user (os.Chown) that this test refuses")
	}
}

// chownToNobody gives path, not following a link, to another user; the
// test is skipped unless it runs as root.
func chownToNobody(t *testing.T, path string) {
	t.Helper()
	requireRoot(t)
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

// TestOpenRefusesAnotherUsersDir opens state dirs that another user made or
// can redirect: their owner could rewrite the records the provider trusts.
func TestOpenRefusesAnotherUsersDir(t *testing.T) {
	tests := []struct {
		name string
		// path makes the state dir under root and returns its path.
		path    func(t *testing.T, root string) string
		wantErr []string
	}{
		{"owned by another user, private", func(t *testing.T, root string) string {
			p := mkdir(t, root, "state", 0o700)
			chownToNobody(t, p)
			return p
		}, []string{"owned by uid 65534", "not by you, uid 0", "state_dir", "chown -R"}},
		{"a link owned by another user, to a directory of ours", func(t *testing.T, root string) string {
			target := mkdir(t, root, "state", 0o700)
			link := filepath.Join(root, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			chownToNobody(t, link)
			return link
		}, []string{"symbolic link owned by uid 65534", "state_dir"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t, t.TempDir())
			_, err := Open(path)
			if err == nil {
				t.Fatal("Open succeeded, want refused")
			}
			for _, want := range append(tt.wantErr, path) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Open error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestForeignEntriesRefused plants, inside a state dir of ours,
// directories and files that another user made, links and a pipe, and
// checks that every way in refuses them, naming them, and touches nothing
// they lead to.
func TestForeignEntriesRefused(t *testing.T) {
	tests := []struct {
		name string
		// plant makes the entry in the state dir d, with outside a
		// directory outside it.
		plant func(t *testing.T, d *Dir, outside string)
		// use is what must be refused.
		use     func(d *Dir) error
		wantErr []string
	}{
		{"directory of another user, reused by MkdirAll", func(t *testing.T, d *Dir, _ string) {
			chownToNobody(t, mkdir(t, mkdir(t, d.Path(), "local", 0o700), "logs", 0o700))
		}, func(d *Dir) error { return d.MkdirAll("local/logs") }, []string{"local/logs", "owned by uid 65534"}},
		{"directory of another user above a file written", func(t *testing.T, d *Dir, _ string) {
			chownToNobody(t, mkdir(t, d.Path(), "local", 0o700))
		}, func(d *Dir) error { return d.WriteFile("local/agents/a.json", []byte("{}")) }, []string{"/local ", "owned by uid 65534"}},
		{"file of another user, read", func(t *testing.T, d *Dir, _ string) {
			writeFile(t, d.Join("a.json"), "{}")
			chownToNobody(t, d.Join("a.json"))
		}, func(d *Dir) error { _, err := d.ReadFile("a.json"); return err }, []string{"a.json", "owned by uid 65534", "remove it"}},
		{"file of another user, statted", func(t *testing.T, d *Dir, _ string) {
			writeFile(t, d.Join("a.json"), "{}")
			chownToNobody(t, d.Join("a.json"))
		}, func(d *Dir) error { _, err := d.Stat("a.json"); return err }, []string{"a.json", "owned by uid 65534"}},
		{"file of another user, appended to", func(t *testing.T, d *Dir, _ string) {
			writeFile(t, d.Join("a.log"), "")
			chownToNobody(t, d.Join("a.log"))
		}, func(d *Dir) error { return closed(d.AppendFile("a.log")) }, []string{"a.log", "owned by uid 65534"}},
		{"link to a file outside, appended to", func(t *testing.T, d *Dir, outside string) {
			symlink(t, filepath.Join(outside, "victim.log"), d.Join("local", "logs", "victim.log"))
		}, func(d *Dir) error { return closed(d.AppendFile("local/logs/victim.log")) },
			[]string{"local/logs/victim.log", "symbolic link", "remove it"}},
		{"link to a file outside, read", func(t *testing.T, d *Dir, outside string) {
			writeFile(t, filepath.Join(outside, "secret"), "outside")
			symlink(t, filepath.Join(outside, "secret"), d.Join("a.json"))
		}, func(d *Dir) error { _, err := d.ReadFile("a.json"); return err }, []string{"a.json", "symbolic link"}},
		{"link to a file outside, statted", func(t *testing.T, d *Dir, outside string) {
			writeFile(t, filepath.Join(outside, "secret"), "outside")
			symlink(t, filepath.Join(outside, "secret"), d.Join("a.json"))
		}, func(d *Dir) error { _, err := d.Stat("a.json"); return err }, []string{"a.json", "symbolic link"}},
		{"link to a directory outside, written through", func(t *testing.T, d *Dir, outside string) {
			symlink(t, outside, d.Join("local"))
		}, func(d *Dir) error { return d.WriteFile("local/agents/a.json", []byte("{}")) }, []string{"/local ", "symbolic link"}},
		{"link to a directory outside, listed", func(t *testing.T, d *Dir, outside string) {
			writeFile(t, filepath.Join(outside, "b.json"), "{}")
			symlink(t, outside, d.Join("agents"))
		}, func(d *Dir) error { _, err := d.Names("agents", ".json"); return err }, []string{"agents", "symbolic link"}},
		{"link to a directory outside, removed from", func(t *testing.T, d *Dir, outside string) {
			writeFile(t, filepath.Join(outside, "b.json"), "{}")
			symlink(t, outside, d.Join("agents"))
		}, func(d *Dir) error { return d.Remove("agents/b.json") }, []string{"agents", "symbolic link"}},
		{"link as the state dir lock", func(t *testing.T, d *Dir, outside string) {
			symlink(t, filepath.Join(outside, "lock"), d.Join(".lock"))
		}, func(d *Dir) error {
			unlock, err := d.Lock(context.Background())
			if err == nil {
				unlock()
			}
			return err
		}, []string{".lock", "symbolic link"}},
		{"lock file of another user", func(t *testing.T, d *Dir, _ string) {
			writeFile(t, d.Join(".locks", "k.lock"), "")
			chownToNobody(t, d.Join(".locks", "k.lock"))
		}, func(d *Dir) error {
			l, err := d.LockKey(context.Background(), "k")
			if err == nil {
				l.Unlock()
			}
			return err
		}, []string{"k.lock", "owned by uid 65534"}},
		{"state dir swapped for another user's after it was opened", func(t *testing.T, d *Dir, _ string) {
			if err := os.Rename(d.Path(), d.Path()+"-away"); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{d.Path(), d.Join("local"), d.Join("local", "logs")} {
				chownToNobody(t, mkdir(t, filepath.Dir(p), filepath.Base(p), 0o700))
			}
		}, func(d *Dir) error { return closed(d.AppendFile("local/logs/a.log")) }, []string{"state dir", "owned by uid 65534"}},
		{"state dir swapped for another user's, a file written in it", func(t *testing.T, d *Dir, _ string) {
			if err := os.Rename(d.Path(), d.Path()+"-away"); err != nil {
				t.Fatal(err)
			}
			chownToNobody(t, mkdir(t, filepath.Dir(d.Path()), filepath.Base(d.Path()), 0o700))
		}, func(d *Dir) error { return d.WriteFile("a.json", []byte("{}")) }, []string{"state dir", "owned by uid 65534"}},
		{"state dir swapped for another user's, its lock", func(t *testing.T, d *Dir, _ string) {
			if err := os.Rename(d.Path(), d.Path()+"-away"); err != nil {
				t.Fatal(err)
			}
			chownToNobody(t, mkdir(t, filepath.Dir(d.Path()), filepath.Base(d.Path()), 0o700))
			writeFile(t, d.Join(".lock"), "")
			chownToNobody(t, d.Join(".lock"))
		}, func(d *Dir) error {
			unlock, err := d.Lock(context.Background())
			if err == nil {
				unlock()
			}
			return err
		}, []string{"state dir", "owned by uid 65534"}},
		{"named pipe, read", func(t *testing.T, d *Dir, _ string) {
			if err := syscall.Mkfifo(d.Join("a.json"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, func(d *Dir) error { _, err := d.ReadFile("a.json"); return err }, []string{"a.json", "not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside := t.TempDir()
			d, err := Open(filepath.Join(t.TempDir(), "state"))
			if err != nil {
				t.Fatal(err)
			}
			tt.plant(t, d, outside)
			before := listing(t, outside)
			done := make(chan error, 1)
			go func() { done <- tt.use(d) }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the state dir operation blocked on what was planted")
			}
			if err == nil {
				t.Fatal("succeeded, want refused")
			}
			if errors.Is(err, fs.ErrNotExist) {
				t.Errorf("error %q reads as a missing file, which callers take for none", err)
			}
			for _, want := range append(tt.wantErr, d.Path()) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if after := listing(t, outside); after != before {
				t.Errorf("the directory outside the state dir changed from [%s] to [%s]", before, after)
			}
		})
	}
}

// TestEntriesOfOursAccepted checks that what the checks refuse is what
// another user could plant, not the state dir's own files.
func TestEntriesOfOursAccepted(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.AppendFile("local/logs/a.log")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("one\n"); err != nil {
		t.Fatal(err)
	}
	if err := closed(d.AppendFile("local/logs/a.log")); err != nil {
		t.Fatal(err)
	}
	info, err := d.Stat("local/logs/a.log")
	if err != nil || info.Size() != 4 {
		t.Fatalf("Stat = %v, %v; want the 4-byte log", info, err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("log mode = %04o, want 0600", perm)
	}
	r, err := d.OpenFile("local/logs/a.log")
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Close()
	if _, err := d.Stat("local/logs/absent.log"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of a missing file = %v, want not exist", err)
	}
	if _, err := d.OpenFile("absent/a.log"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFile in a missing directory = %v, want not exist", err)
	}
	if _, err := d.ReadFile("../escape"); err == nil {
		t.Error("ReadFile took a path outside the state dir")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// closed closes the file an open returned, passing on its error.
func closed(f *os.File, err error) error {
	if err == nil {
		err = f.Close()
	}
	return err
}

// listing names every file under dir with its size.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		out = append(out, strings.TrimPrefix(p, dir)+":"+info.Mode().String()+":"+strconv.FormatInt(info.Size(), 10))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}
