package crashpoint

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOnlyTaggedBuildsCrash builds a program that reaches a crash point
// without the crashpoint tag, as the provider is released, and with it, as
// the tests are built, and runs each with A2A_CRASH_AT naming the point:
// the first goes on, the second dies there.
func TestOnlyTaggedBuildsCrash(t *testing.T) {
	for _, tt := range []struct {
		name    string
		tags    string
		crashes bool
	}{
		{"without the tag, as released", "-tags=", false},
		{"with the crashpoint tag, as tested", "-tags=crashpoint", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "survivor")
			build := exec.CommandContext(t.Context(), "go", "build", tt.tags, "-o", bin, "./testdata/survivor")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build %s: %v\n%s", tt.tags, err, out)
			}
			cmd := exec.CommandContext(t.Context(), bin)
			cmd.Env = append(os.Environ(), EnvVar+"=release-point")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			killed := errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
			switch {
			case tt.crashes && !killed:
				t.Fatalf("a build %s, at its crash point: %v: %s; want it killed there", tt.tags, err, out)
			case !tt.crashes && (err != nil || string(out) != "survived\n"):
				t.Fatalf("a build %s, at its crash point: %v: %s; want it to go on", tt.tags, err, out)
			}
		})
	}
}
