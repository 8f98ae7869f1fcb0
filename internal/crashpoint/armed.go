//go:build crashpoint

package crashpoint

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Enabled says that this build crashes at the point A2A_CRASH_AT names.
const Enabled = true

var (
	target, nth = parse(os.Getenv(EnvVar))
	hits        atomic.Int64
)

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
// asked number of times. Unset, a point costs a string comparison.
func Hit(point string) {
	if target == "" || point != target || hits.Add(1) != nth {
		return
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
