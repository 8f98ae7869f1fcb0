//go:build linux

package local

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// stopOrphan deals with what an agent with no record left behind, before
// the agent is created afresh: the record was removed by hand while its
// process ran. A process the process file proves to be the agent's (pid,
// start time and boot all match) is stopped, as Stop would, and the log
// says so; left running it would hold the agent's port beside the new one,
// managed by nobody. A process nothing identifies is not the runtime's to
// kill: should it hold the port, Start names the port in use. The caller
// holds the state dir lock and the agent's lock.
func (r *Runtime) stopOrphan(ctx context.Context, op, id string) error {
	data, err := r.dir.ReadFile(processFile(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "read the process file of an earlier agent with this id")
	}
	var orphan process
	if json.Unmarshal(data, &orphan) == nil && orphan.BootID == bootID() && alive(orphan.PID, orphan.StartTime) {
		logPath := r.dir.Join(logFile(id))
		appendLog(logPath, "agent process (pid %d) runs with no record (was %s removed?); stopping it before creating the agent again",
			orphan.PID, r.dir.Join(recordFile(id)))
		if err := r.terminate(ctx, op, id, logPath, orphan.PID, orphan.StartTime); err != nil {
			return err
		}
	}
	// Whatever it named is gone now; the new agent has not been started.
	if err := r.dir.Remove(processFile(id)); err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "")
	}
	return nil
}
