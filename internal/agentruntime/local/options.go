// Package local is the runtime adapter that runs agents as detached OS
// processes: `<executable> run --config <file>`, each in its own session,
// recorded durably in the state dir so that later provider processes find
// them again.
//
// It needs Linux: a recycled pid is told from the agent that had it by the
// process start time in /proc, and other systems do not offer that there.
package local

import (
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// DefaultStopGracePeriod is how long Stop waits after SIGTERM before SIGKILL.
const DefaultStopGracePeriod = 10 * time.Second

// Options configure the local adapter.
type Options struct {
	// StateDir is the runtime core's state dir, opened once per process and
	// shared with the other users of the state dir; required.
	StateDir *statedir.Dir
	// Executable is run as `<Executable> run --config <file>`; default: the
	// running executable, whose run subcommand is the agent host.
	Executable string
	// StopGracePeriod is the wait between SIGTERM and SIGKILL; default 10s.
	StopGracePeriod time.Duration
}
