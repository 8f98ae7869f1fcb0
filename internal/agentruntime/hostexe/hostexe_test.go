package hostexe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/testsupport/hostbuild"
)

func TestMain(m *testing.M) {
	code := m.Run()
	hostbuild.Remove()
	os.Exit(code)
}

// script writes an executable shell script with body at name in dir.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheck(t *testing.T) {
	host, err := hostbuild.Path()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("not a program"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		path    string
		want    string
		wantErr []string // empty: no error
	}{
		{"host of the provider's release", host, hostbuild.Release, nil},
		{"host of another release", host, "1.2.0", []string{host, `of release "test"`, `provider of release "1.2.0"`,
			`use the a2a-agent-host of release "1.2.0"`, "beside the provider's executable"}},
		{"no release asked for", host, "", nil},
		{"missing", filepath.Join(dir, "a2a-agent-host"), "1.2.0", []string{filepath.Join(dir, "a2a-agent-host"), "no such file",
			`use the a2a-agent-host of release "1.2.0"`}},
		{"missing, no release asked for", filepath.Join(dir, "absent"), "", []string{"no such file"}},
		{"a directory", dir, "1.2.0", []string{dir + " is not an executable file"}},
		{"not executable", plain, "1.2.0", []string{plain + " is not an executable file"}},
		{"not a host", script(t, dir, "other", "echo 'flag provided but not defined: -version' >&2; exit 2"), "1.2.0",
			[]string{"did not tell its release", "`other version`", "exit status 2", `saying "flag provided but not defined: -version"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(t.Context(), tc.path, tc.want)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Check succeeded, want an error")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestCheckAsksOncePerFile checks the host is asked its release once for
// many agents, and again once the file changes.
func TestCheckAsksOncePerFile(t *testing.T) {
	dir := t.TempDir()
	asked := filepath.Join(dir, "asked")
	fake := func(release string) string {
		return script(t, dir, "host", "echo asked >>"+asked+"; echo "+release)
	}
	count := func() int {
		b, _ := os.ReadFile(asked)
		return strings.Count(string(b), "asked")
	}
	path := fake("1.2.0")
	for range 3 {
		if err := Check(t.Context(), path, "1.2.0"); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n != 1 {
		t.Fatalf("host asked %d times for three checks, want once", n)
	}
	fake("1.3.0-rc.1") // another size: another file
	if err := Check(t.Context(), path, "1.2.0"); err == nil || !strings.Contains(err.Error(), `of release "1.3.0-rc.1"`) {
		t.Fatalf("Check after the host was replaced: %v, want the new host's release refused", err)
	}
	if n := count(); n != 2 {
		t.Errorf("host asked %d times, want twice: once more after it was replaced", n)
	}
}

func TestBesideIsInTheExecutablesDirectory(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Beside()
	if err != nil || got != filepath.Join(filepath.Dir(self), "a2a-agent-host") {
		t.Errorf("Beside() = %q, %v; want a2a-agent-host in %s", got, err, filepath.Dir(self))
	}
}
