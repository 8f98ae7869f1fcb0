//go:build linux

package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime/statedir"
)

// Layout of the adapter's part of the state dir.
const (
	recordDir = "local/agents"
	configDir = "local/configs"
	logDir    = "local/logs"
	// writeOnlyDir holds write-only values, apart from records and configs.
	writeOnlyDir = "local/secrets"
)

// record is the durable account of one agent. It holds names of injected
// variables, never their values.
type record struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// process is kept in a file of its own (see saveProcess).
	process `json:"-"`
	// Started tells a stopped agent from one never started.
	Started bool   `json:"-"`
	Host    string `json:"host"`
	Port    int    `json:"port"`
	// PortAllocated marks a port the runtime chose, kept across restarts
	// and re-provisioning, rather than one the config names.
	PortAllocated bool     `json:"port_allocated"`
	Endpoint      string   `json:"endpoint"`
	CardURL       string   `json:"card_url"`
	ConfigSHA256  string   `json:"config_sha256"`
	InjectedEnv   []string `json:"injected_env"`
	// EnvAllowlist names the allowlist the agent was provisioned with.
	EnvAllowlist string `json:"env_allowlist,omitempty"`
	// WriteOnlyVersion is the version of its write-only values.
	WriteOnlyVersion string `json:"write_only_version,omitempty"`
	// Where its config and log are follows from its id alone (configFile,
	// logFile): records written before kept the paths as config_path and
	// log_path, which are read past, never followed.
	// Brought marks an agent run from its config's runtime.command
	// rather than the built-in host; it serves its card at CardPaths and
	// runs in WorkingDir.
	Brought    bool     `json:"external,omitempty"`
	CardPaths  []string `json:"card_paths,omitempty"`
	WorkingDir string   `json:"working_dir,omitempty"`
	// Creation is set by a create-only provision until the agent is
	// claimed (see Claim).
	Creation *creation `json:"creation,omitempty"`
}

// creation says which create made an agent, for which spec, so that the
// next create of the very same spec takes over an agent whose creator died
// before its caller could record it.
type creation struct {
	ConfigSHA256 string `json:"config_sha256"`
	EnvAllowlist string `json:"env_allowlist,omitempty"`
	// Creator is the provider process that made it.
	Creator process `json:"creator"`
}

// process names the agent's process last started: pid, start time (clock
// ticks after boot, /proc/<pid>/stat field 22) and the boot it ran in; zero
// when it is known to be stopped. It matters only while the machine is up,
// so it is written atomically but not synced, keeping starts fast; the
// record proper is synced.
type process struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time"`
	BootID    string `json:"boot_id"`
	// Starting is the intent written before a spawn: a process may exist
	// that no pid here names yet; the process table finds it.
	Starting bool `json:"starting,omitempty"`
	// ConfigSHA256 is the digest of the config the process runs.
	ConfigSHA256 string `json:"config_sha256,omitempty"`
	// Supervisor is the process that restarts the agent when it exits
	// (see supervisor.go); nil for an agent started before there was one.
	Supervisor *pidStart `json:"supervisor,omitempty"`
	// Stopping is the intent a stop writes before it signals anything: a
	// supervisor that finds it restarts nothing and exits.
	Stopping bool `json:"stopping,omitempty"`
	// Restarts counts the supervisor's restarts since the agent was
	// last started by the runtime.
	Restarts int `json:"restarts,omitempty"`
	// LastExit says how the agent's process last ended, when it ended on
	// its own.
	LastExit string `json:"last_exit,omitempty"`
	// Failed marks an agent its supervisor gave up on: it exited again
	// after as many restarts in a row as the limit allows.
	Failed bool `json:"failed,omitempty"`
}

// pidStart names one process for the life of the machine.
type pidStart struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time"`
}

// supervised reports whether p's supervisor still runs.
func (p process) supervised() bool {
	return p.Supervisor != nil && p.BootID == bootID() && alive(p.Supervisor.PID, p.Supervisor.StartTime)
}

// outcome is what a process file keeps of the agent's past runs once its
// process is known to be gone: enough to tell why it stays down.
func (p process) outcome() process {
	return process{Restarts: p.Restarts, LastExit: p.LastExit, Failed: p.Failed}
}

// thisProcess is the provider process itself, as a creator.
func thisProcess() process {
	start, _ := startTimeOf(os.Getpid())
	return process{PID: os.Getpid(), StartTime: start, BootID: bootID()}
}

// alive reports whether p still runs.
func (p process) alive() bool {
	return p.BootID == bootID() && alive(p.PID, p.StartTime)
}

func recordFile(id string) string  { return path.Join(recordDir, id+".json") }
func processFile(id string) string { return path.Join(recordDir, id+".process") }
func configFile(id string) string  { return path.Join(configDir, id+".toml") }
func logFile(id string) string     { return path.Join(logDir, id+".log") }

// supervisorLockKey names the lock an agent's supervisor holds for its
// whole life, so that no two ever supervise, and so run, one agent.
func supervisorLockKey(id string) string { return "supervisor-" + id }

// running reports whether the recorded process is alive.
func (rec *record) running() bool {
	return rec.alive()
}

// takenOverBy reports whether a create-only provision of the spec digested
// by sha with allowlist may take rec over: a create of that very spec made
// it, no one claimed it since, and its creator died.
func (rec *record) takenOverBy(sha, allowlist string) bool {
	c := rec.Creation
	return c != nil && c.ConfigSHA256 == sha && c.EnvAllowlist == allowlist && !c.Creator.alive()
}

// readConfig reads the config file of rec, provided it is the config rec
// was provisioned with: one left by a provision that did not finish, or
// changed by hand, must not run under rec's digest and injected variables.
func (r *Runtime) readConfig(rec *record) ([]byte, error) {
	raw, err := r.dir.ReadFile(configFile(rec.ID))
	if err != nil {
		return nil, damaged("read", rec.ID, err, "config file %s cannot be read", r.dir.Join(configFile(rec.ID)))
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != rec.ConfigSHA256 {
		return nil, damaged("read", rec.ID, nil, "config file %s is not the config the agent was provisioned with (sha256 %s): "+
			"its last provision did not finish or the file was changed by hand", r.dir.Join(configFile(rec.ID)), rec.ConfigSHA256)
	}
	return raw, nil
}

// damaged is the error for an agent whose files cannot be used, with the
// remedies that work on it.
func damaged(op, id string, cause error, format string, args ...any) error {
	return agentruntime.Errorf(agentruntime.KindDamaged, op, id, cause,
		"%s; terraform apply provisions the agent afresh from its declared config (stopping any process of it first), "+
			"and terraform destroy removes it", fmt.Sprintf(format, args...))
}

// load reads the record of id and its process; an unknown id is a
// NotFound error for op.
func (r *Runtime) load(op, id string) (*record, error) {
	rec, err := r.loadRecord(op, id)
	if err != nil {
		return nil, err
	}
	// A process file that is missing means never started; one that cannot
	// be read (as after a machine crash) means stopped.
	data, err := r.dir.ReadFile(processFile(id))
	if err == nil {
		rec.Started = true
		if json.Unmarshal(data, &rec.process) != nil {
			rec.process = process{}
		}
	}
	return rec, nil
}

// loadRecord reads the record of id alone, without its process.
func (r *Runtime) loadRecord(op, id string) (*record, error) {
	if id == "" || agentconfig.Slug(id) != id {
		return nil, agentruntime.NotFound(op, id)
	}
	data, err := r.dir.ReadFile(recordFile(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, agentruntime.NotFound(op, id)
	}
	if err != nil {
		return nil, agentruntime.Errorf(agentruntime.KindBackend, op, id, err, "read record")
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil || rec.ID != id {
		if err == nil {
			err = fmt.Errorf("it names agent %q", rec.ID)
		}
		return nil, damaged(op, id, err, "record %s is damaged", r.dir.Join(recordFile(id)))
	}
	return &rec, nil
}

// save writes rec atomically and durably; the caller holds the state dir
// lock.
func (r *Runtime) save(op string, rec *record) error {
	sync, err := r.publish(op, rec)
	if err != nil {
		return err
	}
	return sync()
}

// publish writes rec atomically, for every reader to see at once, and
// returns the sync that makes it durable, which the caller may run after
// letting the state dir lock go; it holds the agent's lock until then.
func (r *Runtime) publish(op string, rec *record) (sync func() error, err error) {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, agentruntime.Errorf(agentruntime.KindBackend, op, rec.ID, err, "encode record")
	}
	syncFile, err := r.dir.WriteFileSyncLater(recordFile(rec.ID), data)
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindBackend, op, rec.ID, err)
	}
	return func() error {
		if err := syncFile(); err != nil {
			return agentruntime.Wrap(agentruntime.KindBackend, op, rec.ID, err)
		}
		return nil
	}, nil
}

// saveProcess writes rec's process atomically, unsynced; the caller holds
// the agent's lock.
func (r *Runtime) saveProcess(op string, rec *record) error {
	data, err := json.Marshal(rec.process)
	if err != nil {
		return agentruntime.Errorf(agentruntime.KindBackend, op, rec.ID, err, "encode process")
	}
	if err := r.dir.WriteFileUnsynced(processFile(rec.ID), data); err != nil {
		return agentruntime.Wrap(agentruntime.KindBackend, op, rec.ID, err)
	}
	rec.Started = true
	return nil
}

// loadAll reads every record, sorted by id. A record removed while the
// directory is read, or damaged, is skipped.
func (r *Runtime) loadAll(op string) ([]*record, error) {
	return r.loadEach(op, r.load, nil)
}

// heldPorts are the ports of every record, read without their processes.
func (r *Runtime) heldPorts(op string) (map[int]bool, error) {
	recs, err := r.loadEach(op, r.loadRecord, nil)
	if err != nil {
		return nil, err
	}
	held := make(map[int]bool, len(recs))
	for _, rec := range recs {
		held[rec.Port] = true
	}
	return held, nil
}

// loadEach reads every record with load, sorted by id, skipping those
// removed while the directory is read, or damaged; damaged, when not nil,
// is told why each damaged one was skipped.
func (r *Runtime) loadEach(op string, load func(op, id string) (*record, error), damaged func(error)) ([]*record, error) {
	ids, err := r.dir.Names(recordDir, ".json")
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindBackend, op, "", err)
	}
	recs := make([]*record, 0, len(ids))
	for _, id := range ids {
		rec, err := load(op, id)
		if agentruntime.IsKind(err, agentruntime.KindNotFound) || agentruntime.IsKind(err, agentruntime.KindDamaged) {
			// Gone meanwhile, or damaged: a damaged record concerns its
			// own agent only, whose operations report it.
			if damaged != nil && agentruntime.IsKind(err, agentruntime.KindDamaged) {
				damaged(err)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// Locks. The state dir lock guards the set of records and the ports they
// hold (provision, recover, deprovision); an agent's lock guards its own
// record, so agents start and stop in parallel. Whoever needs both takes
// the state dir lock first.

// lockAll takes the state dir lock and the lock of agent id (if any) for op.
func (r *Runtime) lockAll(ctx context.Context, op, id string) (func(), error) {
	unlockDir, err := r.lockDir(ctx, op, id)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return unlockDir, nil
	}
	agent, err := r.lockAgent(ctx, op, id)
	if err != nil {
		unlockDir()
		return nil, err
	}
	return func() { agent.Unlock(); unlockDir() }, nil
}

// lockDir takes the state dir lock for op on agent id.
func (r *Runtime) lockDir(ctx context.Context, op, id string) (func(), error) {
	unlock, err := r.dir.Lock(ctx)
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
	}
	return unlock, nil
}

// lockAgent takes the lock of agent id's record for op.
func (r *Runtime) lockAgent(ctx context.Context, op, id string) (*statedir.KeyLock, error) {
	lock, err := r.dir.LockKey(ctx, agentLockKey(id))
	if err != nil {
		return nil, agentruntime.Wrap(agentruntime.KindBackend, op, id, err)
	}
	return lock, nil
}

// agentLockKey names the lock of agent id's record in the state dir.
func agentLockKey(id string) string { return "agent-" + id }
