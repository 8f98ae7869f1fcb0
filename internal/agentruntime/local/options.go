// Package local is the runtime adapter that runs agents as detached OS
// processes: `a2a-agent-host --config <file>`, each in its own session,
// under a supervisor of its own (see supervisor.go) that restarts it when
// it exits, recorded durably in the state dir so that later provider
// processes find them again.
//
// It needs Linux: a recycled pid is told from the agent that had it by the
// process start time in /proc, and other systems do not offer that there.
//
// # Crash consistency
//
// Like a task driver that hands back a task handle to recover its task
// from, the adapter writes down what it is about to do before it does it,
// and every state a crash can leave has a recovery. An agent's files, in
// local/agents and local/configs, are written atomically (a temporary file
// renamed over the target); the record is synced, the process file is not,
// as a process does not outlive the machine. The process table is the
// final word on what runs: every agent process carries, in its
// environment, the state dir's path and id, its agent id and its config's
// digest, so it is found ([ScanProcesses]) whatever became of its files.
//
//	state left by a crash                  recovery
//	record, no config (provision cut)      damaged: the next apply provisions it again; a create
//	                                       of the same spec takes it over; destroy removes it
//	record with creation (create-only,     a create of the very same spec takes it over once its
//	  not yet claimed)                     creator is dead (its caller never recorded it); a read
//	                                       that finds it in Terraform state claims it; any other
//	                                       create is refused as existing
//	process file "starting" (spawn         recovery adopts the process the table shows, or clears
//	  intended, pid not recorded)          the intent when none runs
//	process file naming a dead pid         recovery clears it: the agent is stopped (keeping
//	                                       its restarts, last exit and whether it failed)
//	live supervisor, dead agent (between   the supervisor restarts it; it reads unhealthy
//	  restarts)                            meanwhile, and a start replaces the supervisor
//	live agent, dead supervisor (killed)   recovery and start give it a new supervisor that
//	                                       watches it; the supervisor lock keeps it to one
//	process file "stopping" (stop cut)     no supervisor restarts the agent; the next stop
//	                                       or start completes
//	process file "failed" (restart limit)  reads stopped with why and its log tail, until the
//	                                       next start
//	process runs a config older than       it reads unhealthy, so the next apply restarts it
//	  the record's (restart cut)
//	process of this state dir, no record   stopped before the agent is created again, and by
//	  (deprovision cut, record removed)    destroy; listed by recovery meanwhile
//	process of a state dir moved away or   never stopped nor duplicated here: creating its agent
//	  lost                                 fails naming it, with how to adopt (point state_dir at
//	                                       the moved dir) or stop it
//	record, config or process file         damaged, for that agent alone: reads report the file
//	  unreadable or not matching           and the remedy; apply provisions it afresh, stopping
//	                                       what runs of it; destroy removes it
//	.<file>.tmp-* files (write cut)        removed by recovery and with their agent
//
// Deprovision stops every process of the agent the table shows, then
// removes its files with the record last, so that a deprovision cut short
// leaves a record that says something is still to remove.
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
	// Executable is the agent host, run as `<Executable> --config <file>`;
	// default: a2a-agent-host beside the running executable
	// (hostexe.Beside).
	Executable string
	// Version is the provider's release: before it starts the first agent,
	// the runtime makes sure Executable is a host of that release, and each
	// host it starts refuses to serve otherwise. Empty: neither is checked.
	Version string
	// StopGracePeriod is the wait between SIGTERM and SIGKILL; default 10s.
	StopGracePeriod time.Duration
	// RestartPolicy says when an agent's supervisor restarts it after it
	// exits on its own: one of RestartPolicies; default
	// DefaultRestartPolicy.
	RestartPolicy string
	// Backoff paces and bounds those restarts; unset fields take
	// DefaultBackoff's.
	Backoff Backoff
}
