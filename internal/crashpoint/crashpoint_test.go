package crashpoint

import (
	"os"
	"os/exec"
	"testing"
)

// TestOnlyTestBinariesCrash runs a program built without the testing
// harness with A2A_CRASH_AT set: it reaches the point and goes on.
func TestOnlyTestBinariesCrash(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), "go", "run", "./testdata/survivor")
	cmd.Env = append(os.Environ(), EnvVar+"=release-point")
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "survived\n" {
		t.Fatalf("a program that is no test binary, at its crash point: %v: %s; want it to go on", err, out)
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		name string
		n    int64
	}{{"a-b-c", "a-b-c", 1}, {"a-b-c:3", "a-b-c", 3}, {"a:0", "a", 1}, {"a:x", "a", 1}, {"", "", 1}} {
		if name, n := parse(tt.in); name != tt.name || n != tt.n {
			t.Errorf("parse(%q) = %q, %d; want %q, %d", tt.in, name, n, tt.name, tt.n)
		}
	}
}
