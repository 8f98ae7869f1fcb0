package local

import (
	"fmt"
	"slices"
	"time"
)

// Restart policies, named and meant as the container adapter's engine
// names them, so that one provider block reads the same on either adapter.
const (
	RestartNo            = "no"
	RestartAlways        = "always"
	RestartUnlessStopped = "unless-stopped"
	RestartOnFailure     = "on-failure"
)

// DefaultRestartPolicy is the container adapter's default too.
const DefaultRestartPolicy = RestartUnlessStopped

// RestartPolicies lists every policy the local adapter takes.
var RestartPolicies = []string{RestartNo, RestartAlways, RestartUnlessStopped, RestartOnFailure}

// CheckRestartPolicy refuses a policy the adapter does not know.
func CheckRestartPolicy(policy string) error {
	if policy == "" || slices.Contains(RestartPolicies, policy) {
		return nil
	}
	return fmt.Errorf("restart policy %q is not one of no, always, on-failure or unless-stopped", policy)
}

// restartsAfter reports whether policy restarts an agent that exited on its
// own; failed says it exited non-zero or by a signal. "always" and
// "unless-stopped" differ on an engine only after the engine restarts, and
// nothing restarts local agents after a reboot, so here they are one. A
// stop by the runtime is never undone by any policy: the supervisor is told
// first (see Runtime.Stop).
func restartsAfter(policy string, failed bool) bool {
	switch policy {
	case RestartNo:
		return false
	case RestartOnFailure:
		return failed
	default:
		return true
	}
}

// Backoff paces the restarts of an agent that keeps exiting, and bounds
// them: a crash loop must neither spin the machine nor go on for ever.
type Backoff struct {
	// Initial is the wait before the first restart; each restart in a
	// row doubles it, up to Max.
	Initial, Max time.Duration
	// Limit is how many restarts in a row an agent gets before it is left
	// failed. A run that lasts Stable or longer ends the row: an agent
	// that crashes once a day is not in a crash loop.
	Limit  int
	Stable time.Duration
}

// DefaultBackoff waits 1s, 2s, 4s, 8s and 16s, then gives up: a minute of
// trying is enough to tell a crash loop from a hiccup.
var DefaultBackoff = Backoff{Initial: time.Second, Max: 30 * time.Second, Limit: 5, Stable: 30 * time.Second}

// withDefaults fills in what b leaves unset from DefaultBackoff.
func (b Backoff) withDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = DefaultBackoff.Initial
	}
	if b.Max < b.Initial {
		b.Max = max(DefaultBackoff.Max, b.Initial)
	}
	if b.Limit <= 0 {
		b.Limit = DefaultBackoff.Limit
	}
	if b.Stable <= 0 {
		b.Stable = DefaultBackoff.Stable
	}
	return b
}

// next decides on the exit of an agent that has had inRow restarts in a
// row and whose last run lasted ran: the restarts in a row the coming
// restart makes, and the wait before it; giveUp says the limit is reached.
func (b Backoff) next(inRow int, ran time.Duration) (row int, wait time.Duration, giveUp bool) {
	if ran >= b.Stable {
		inRow = 0
	}
	if inRow >= b.Limit {
		return inRow, 0, true
	}
	wait = b.Initial
	for range inRow {
		if wait >= b.Max/2 {
			wait = b.Max
			break
		}
		wait *= 2
	}
	return inRow + 1, min(wait, b.Max), false
}
