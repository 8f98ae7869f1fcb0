// Package crashpoint kills the process at a named point of its work when
// the A2A_CRASH_AT environment variable names that point, so that tests
// can crash the provider exactly there and prove that the next run
// recovers. A2A_CRASH_AT is "<point>" (the first time the point is
// reached) or "<point>:<n>" (the n-th time). Unset, a point costs a string
// comparison. Points are named "<component>-<operation>-<moment>", such as
// "local-start-spawned". Only a test binary crashes: in the provider as
// released, A2A_CRASH_AT does nothing.
package crashpoint

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// EnvVar names the point to crash at.
const EnvVar = "A2A_CRASH_AT"

var (
	target, nth = armed()
	hits        atomic.Int64
)

// armed reads the point to crash at, in a test binary only.
func armed() (string, int64) {
	if !testing.Testing() {
		return "", 0
	}
	return parse(os.Getenv(EnvVar))
}

func parse(v string) (string, int64) {
	name, count, found := strings.Cut(v, ":")
	n, err := strconv.ParseInt(count, 10, 64)
	if !found || err != nil || n < 1 {
		n = 1
	}
	return name, n
}

// Hit kills this process with SIGKILL, which nothing can catch or delay,
// when point is the one A2A_CRASH_AT names and has now been reached the
// asked number of times.
func Hit(point string) {
	if target == "" || point != target || hits.Add(1) != nth {
		return
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
