//go:build linux

package local

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// stopOrphan deals with what an agent with no usable record left behind,
// before the agent is created afresh: its record was removed or damaged
// while its process ran, or a crash came between the two. Every process
// the process table shows to be the agent's (it carries this state dir's
// id and the agent id), and any the process file names, is stopped, as
// Stop would, and the log says so; left running it would hold the agent's
// port beside the new one, managed by nobody. An agent of a state dir that
// was at this path before (moved away or lost) is refused instead: it is
// not this state dir's to stop, and the user decides. The caller holds the
// state dir lock and the agent's lock.
//
// noneRan says that the process table, read before the caller took the
// locks, showed no process of the id, and that the agent had no record:
// with no process file either, nothing of it can run now, since a process
// starts only from a record and Deprovision stops every process before it
// removes the record, so the table is not read again under the locks.
func (r *Runtime) stopOrphan(ctx context.Context, op, id string, noneRan bool) error {
	data, err := r.dir.ReadFile(processFile(id))
	switch {
	case noneRan && errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "read the process file of an earlier agent with this id")
	}
	procs := processesNamed(id)
	if lost := r.lostAgents(procs, id); len(lost) > 0 {
		return agentruntime.Errorf(agentruntime.KindUnmanaged, op, id, nil, "%s", lost[0].Why)
	}
	orphans := r.ofThisDir(procs)
	var recorded process
	if err == nil && json.Unmarshal(data, &recorded) == nil && recorded.alive() &&
		!slices.ContainsFunc(orphans, func(p Process) bool { return p.PID == recorded.PID }) {
		orphans = append(orphans, Process{PID: recorded.PID, StartTime: recorded.StartTime})
	}
	for _, orphan := range orphans {
		r.appendLog(id, "agent process (pid %d) runs with no usable record (was %s removed or damaged?); stopping it before creating the agent again",
			orphan.PID, r.dir.Join(recordFile(id)))
		if err := r.terminate(ctx, op, id, orphan.PID, orphan.StartTime); err != nil {
			return err
		}
	}
	// Whatever it named is gone now; the new agent has not been started.
	if err := r.dir.Remove(processFile(id)); err != nil {
		return agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
	}
	return nil
}

// noneRunning reports whether the process table shows no process of
// agent id, of any state dir, before a create takes the locks: a new
// agent, the common case, then needs no look at the table under them.
func (r *Runtime) noneRunning(id string) bool {
	if _, err := r.dir.Stat(recordFile(id)); !errors.Is(err, fs.ErrNotExist) {
		return false // it has a record, or may: the locks tell
	}
	return len(processesNamed(id)) == 0
}

// lostAgents returns the agents among procs (of agent id, or of every id
// when id is empty) that run for a state dir that is gone: the directory
// they carry no longer exists, or holds another state dir now. They are
// found in the process table, where every agent carries its state dir (a
// brought program the path's digest) and its id.
func (r *Runtime) lostAgents(procs []Process, id string) []agentruntime.Unmanaged {
	var out []agentruntime.Unmanaged
	here := pathDigest(r.dir.Path())
	for _, p := range procs {
		// A supervisor goes with its agent, which is named on its own.
		if (id != "" && p.AgentID != id) || p.StateDirID == r.dirID || p.Supervisor {
			continue
		}
		var why string
		switch {
		case p.StateDir == r.dir.Path() || p.StateDirDigest == here:
			why = "was started for the state dir that was at " + r.dir.Path() + " before this one was made there (the old one was moved or deleted)"
		default:
			if why = lostElsewhere(p); why == "" {
				continue // its state dir is there and manages it, or is not known
			}
		}
		out = append(out, agentruntime.Unmanaged{ID: p.AgentID, Instance: strconv.Itoa(p.PID), Why: "agent " + strconv.Quote(p.AgentID) +
			" (pid " + strconv.Itoa(p.PID) + ") still runs and " + why + ": if that state dir was moved, set state_dir in the provider " +
			"block to its new place and the agent is managed again there; otherwise stop it with `kill -TERM -- -" +
			strconv.Itoa(p.PID) + "` and apply again"})
	}
	return out
}

// lostElsewhere says why p, an agent of a state dir at another path, is
// lost: that directory no longer exists, or holds another state dir now.
// It says nothing for an agent whose state dir is there and manages it, or
// for a brought program, whose state dir's path is not known here: only a
// state dir made later at that path tells it is lost.
func lostElsewhere(p Process) string {
	if p.StateDir == "" {
		return ""
	}
	switch current, err := readStateDirID(p.StateDir); {
	case errors.Is(err, fs.ErrNotExist):
		return "was started for state dir " + p.StateDir + ", which no longer exists (it was moved or deleted)"
	case err == nil && current != p.StateDirID:
		return "was started for the state dir that was at " + p.StateDir + " before another was made there (the old one was moved or deleted)"
	}
	return ""
}

// readStateDirID reads the id of the state dir at path without opening it.
func readStateDirID(path string) (string, error) {
	data, err := os.ReadFile(filepath.Join(path, ".id"))
	return strings.TrimSpace(string(data)), err
}
