//go:build linux

package local

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// nobody is the uid the tests give what another user made.
const nobody = 65534

// chownToNobody gives path to another user; the test is skipped unless it
// runs as root, the only user who may.
func chownToNobody(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: only root can make the files of another user (os.Chown) that this test plants")
	}
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

// TestPlantedLogLinkNotFollowed plants the agent's log as a link to a file
// outside the state dir before the agent first starts, as another user
// who could write in the state dir would to make the provider create or
// append to a file of its choosing. The start is refused, naming the link,
// and nothing is made through it, by the start or the destroy after it.
func TestPlantedLogLinkNotFollowed(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	victim := filepath.Join(t.TempDir(), "pwned.log")
	a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Victim", "")})
	link := rt.dir.Join(logFile(a.ID))
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	err := rt.Start(bg, a.ID)
	if err == nil {
		t.Error("Start with the log a link to a file outside the state dir succeeded, want refused")
	} else if !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Start error %q does not name the link %s", err, link)
	}
	if got, err := rt.Get(bg, a.ID); err != nil || got.Running {
		t.Errorf("after the refused start, Get = running %v, %v; want a stopped agent", got.Running, err)
	}
	if err := rt.Deprovision(bg, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(victim); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s, which the planted link names, was made (%v)", victim, err)
	}
}

// TestForeignFilesRefused plants, in a state dir of the provider's user,
// directories and records another user made, as the only user who could
// write there would to replace the provider's records: every one is
// refused, naming it and its owner.
func TestForeignFilesRefused(t *testing.T) {
	tests := []struct {
		name string
		// plant gives the agent's files, or a directory of them, to another
		// user, once it is provisioned.
		plant func(t *testing.T, rt *Runtime, id string)
		// use is the operation that must refuse them.
		use     func(rt *Runtime, id string) error
		wantErr string
	}{
		{"record of another user", func(t *testing.T, rt *Runtime, id string) {
			chownToNobody(t, rt.dir.Join(recordFile(id)))
		}, func(rt *Runtime, id string) error { return rt.Start(bg, id) }, "agents/foreign.json"},
		{"config of another user", func(t *testing.T, rt *Runtime, id string) {
			chownToNobody(t, rt.dir.Join(configFile(id)))
		}, func(rt *Runtime, id string) error { return rt.Start(bg, id) }, "configs/foreign.toml"},
		{"records directory of another user", func(t *testing.T, rt *Runtime, _ string) {
			chownToNobody(t, rt.dir.Join(recordDir))
		}, func(rt *Runtime, _ string) error {
			_, err := rt.Provision(bg, agentruntime.Spec{Config: agentConfig("Other", "")})
			return err
		}, "local/agents"},
		{"logs directory of another user", func(t *testing.T, rt *Runtime, _ string) {
			chownToNobody(t, rt.dir.Join(logDir))
		}, func(rt *Runtime, _ string) error {
			_, err := New(Options{StateDir: rt.dir})
			return err
		}, "local/logs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newRuntime(t, t.TempDir())
			a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Foreign", "")})
			tt.plant(t, rt, a.ID)
			// Given back when the test ends, so that the cleanup can remove the agent.
			t.Cleanup(func() { giveBack(t, rt.dir.Path()) })
			err := tt.use(rt, a.ID)
			if err == nil {
				t.Fatal("succeeded, want refused")
			}
			for _, want := range []string{tt.wantErr, "owned by uid 65534", "not by you"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if got, err := rt.Get(bg, a.ID); err == nil && got.Running {
				t.Error("the agent runs after its files were refused")
			}
		})
	}
}

// giveBack gives everything under dir back to the test's user.
func giveBack(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, os.Geteuid(), os.Getegid())
	})
	if err != nil {
		t.Error(err)
	}
}

// TestRecordedPathsNotFollowed tampers with the paths a record of an
// earlier version keeps, pointing its log outside the state dir and its
// config at another config: the agent runs the config the record's digest
// names, and logs where its id says.
func TestRecordedPathsNotFollowed(t *testing.T) {
	rt := newRuntime(t, t.TempDir())
	a := provisionOnly(t, rt, agentruntime.Spec{Config: agentConfig("Tampered", "")})
	outside := t.TempDir()
	elsewhereLog := filepath.Join(outside, "elsewhere.log")
	otherConfig := filepath.Join(outside, "other.toml")
	if err := os.WriteFile(otherConfig, agentConfig("Impostor", ""), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := rt.dir.ReadFile(recordFile(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	rec["log_path"], rec["config_path"] = elsewhereLog, otherConfig
	if data, err = json.Marshal(rec); err != nil {
		t.Fatal(err)
	}
	if err := rt.dir.WriteFile(recordFile(a.ID), data); err != nil {
		t.Fatal(err)
	}

	if err := rt.Start(bg, a.ID); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, rt, a.ID)
	got, err := rt.Get(bg, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Card == nil {
		t.Fatalf("the agent serves no card: %v", got.CardError)
	}
	if name := got.Card.Card.Name; name != "Tampered" {
		t.Errorf("the agent serves the card of %q, want the one of its own config, named Tampered", name)
	}
	if _, err := os.Lstat(elsewhereLog); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the agent logged to %s, the log_path the record was given (%v)", elsewhereLog, err)
	}
	lines, err := rt.Logs(bg, a.ID, 0)
	if err != nil || !strings.Contains(strings.Join(lines, "\n"), "starting agent") {
		t.Errorf("Logs = %q, %v; want the agent's log, where its id says", lines, err)
	}
}
