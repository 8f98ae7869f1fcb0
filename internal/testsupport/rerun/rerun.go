// Package rerun runs the running test again in a process of its own, to
// play a part there: a provider process that takes a lock, or creates an
// agent, and then exits or dies. Only another process can: what a process
// holds is let go of when it ends, however it ends, and by nothing else.
package rerun

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// envVar carries the part to the process Run starts.
const envVar = "A2A_TEST_RERUN_PART"

// Part is the part this process was started to play by Run, or "" in a
// test run as usual. A test that Run starts again checks it first, plays
// the part and exits.
func Part() string { return os.Getenv(envVar) }

// Run runs test t again in a process of its own, which plays part, with
// env added to its environment, and returns what it printed and how it
// ended.
func Run(t *testing.T, part string, env ...string) (string, error) {
	t.Helper()
	if part == "" {
		t.Fatal("rerun.Run: the part to play is empty")
	}
	names := strings.Split(t.Name(), "/")
	for i, n := range names {
		names[i] = "^" + regexp.QuoteMeta(n) + "$"
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run="+strings.Join(names, "/"), "-test.count=1")
	cmd.Env = append(append(os.Environ(), env...), envVar+"="+part)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
