//go:build linux

package local

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strconv"
	"syscall"
)

// Every agent process carries its identity in its environment, so that the
// process table alone tells which agent of which state dir it is: a lost
// record, process file or even state dir cannot hide it. Where the state
// dir is, the built-in host is told (its flags name its config and
// write-only values in the state dir anyway); a program the operator
// brings has no use for it and gets the path's digest instead, enough to
// tell a state dir made later at that path that the agent was its
// predecessor's.
const (
	envStateDir       = "A2A_AGENT_STATE_DIR"
	envStateDirDigest = "A2A_AGENT_STATE_DIR_SHA256"
	envStateDirID     = "A2A_AGENT_STATE_DIR_ID"
	envAgentID        = "A2A_AGENT_ID"
	envConfigSHA      = "A2A_AGENT_CONFIG_SHA256"
	// envSupervisor marks an agent's supervisor, which carries its agent's
	// identity too, so that the table shows it beside its agent; the
	// supervisor gives the agent its environment without it.
	envSupervisor = "A2A_AGENT_SUPERVISOR"
)

// Process is an agent process found in the process table, by the identity
// it carries.
type Process struct {
	PID       int
	StartTime uint64
	// StateDir is the built-in host's state dir; StateDirDigest that of a
	// brought program, which is not told the path.
	StateDir       string
	StateDirDigest string
	StateDirID     string
	AgentID        string
	ConfigSHA      string
	// Supervisor marks the agent's supervisor rather than the agent.
	Supervisor bool
}

// identityEnv is the identity an agent process of this runtime carries;
// brought marks a program the operator brings.
func (r *Runtime) identityEnv(id, configSHA string, brought bool) []string {
	where := envStateDir + "=" + r.dir.Path()
	if brought {
		where = envStateDirDigest + "=" + pathDigest(r.dir.Path())
	}
	return []string{where, envStateDirID + "=" + r.dirID, envAgentID + "=" + id, envConfigSHA + "=" + configSHA}
}

// pathDigest is the SHA-256 (hex) of a state dir's path.
func pathDigest(path string) string {
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:])
}

// ScanProcesses lists the live agent processes of this user, of any state
// dir: what runs, whatever the records say. Processes of other users, whose
// environment cannot be read, are not this provider's to manage.
func ScanProcesses() []Process {
	return scan(envAgentID + "=")
}

// processesNamed lists the live agent processes of this user that carry
// agent id, of any state dir.
func processesNamed(id string) []Process {
	return scan(envAgentID + "=" + id + "\x00")
}

// scan lists the live agent processes of this user whose environment has
// an entry that begins with entry. A process whose environment has none
// costs one read: a scan runs on every create and start, and the table
// holds every process of the machine.
func scan(entry string) []Process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	uid := os.Getuid()
	var out []Process
	buf := make([]byte, environBuffer)
	// Entries are NUL-separated: one begins the environment or follows a NUL.
	first, later := []byte(entry), append([]byte{0}, entry...)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		var env []byte
		env, buf = readEnviron(pid, buf)
		if len(env) > 0 && env[len(env)-1] != 0 {
			env = append(env, 0) // the last entry ends as the others do
		}
		if !bytes.HasPrefix(env, first) && !bytes.Contains(env, later) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		if p, ok := agentProc(pid, env); ok {
			out = append(out, p)
		}
	}
	return out
}

// environBuffer holds the environment of most processes in one read.
const environBuffer = 16 << 10

// readEnviron reads the environment of pid into buf, grown as needed, and
// returns it with the buffer to reuse; nothing when it cannot be read.
func readEnviron(pid int, buf []byte) ([]byte, []byte) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/environ", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, buf
	}
	defer func() { _ = syscall.Close(fd) }()
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, buf
		}
		if m == 0 {
			return buf[:n], buf
		}
		n += m
	}
}

// agentProc reads the identity an agent process carries in env, if pid is
// still a live one.
func agentProc(pid int, env []byte) (Process, bool) {
	id, err := readProc(pid)
	if err != nil || id.state == 'Z' || id.state == 'X' {
		return Process{}, false
	}
	p := Process{PID: pid, StartTime: id.startTime}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		k, v, ok := bytes.Cut(kv, []byte{'='})
		if !ok {
			continue
		}
		switch string(k) {
		case envStateDir:
			p.StateDir = string(v)
		case envStateDirDigest:
			p.StateDirDigest = string(v)
		case envStateDirID:
			p.StateDirID = string(v)
		case envAgentID:
			p.AgentID = string(v)
		case envConfigSHA:
			p.ConfigSHA = string(v)
		case envSupervisor:
			p.Supervisor = len(v) > 0
		}
	}
	return p, p.AgentID != "" && p.StateDirID != ""
}

// processesOf returns the live processes of agent id of this state dir,
// wherever the directory now lies.
func (r *Runtime) processesOf(id string) []Process {
	return r.ofThisDir(processesNamed(id))
}

// ofThisDir keeps the processes of procs that belong to this state dir,
// supervisors first: whoever stops them in this order stops each agent's
// supervisor before the agent, so that nothing restarts what it stops.
func (r *Runtime) ofThisDir(procs []Process) []Process {
	var out []Process
	for _, p := range procs {
		if p.StateDirID == r.dirID {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b Process) int {
		switch {
		case a.Supervisor == b.Supervisor:
			return 0
		case a.Supervisor:
			return -1
		}
		return 1
	})
	return out
}

// agentsOnly leaves the supervisors out of procs.
func agentsOnly(procs []Process) []Process {
	return slices.DeleteFunc(slices.Clone(procs), func(p Process) bool { return p.Supervisor })
}

// adopt gives rec the process the process table shows running it, when
// its process file names none alive (a crash came between the spawn and
// the file, or the file was lost), and records it. It reports whether it
// found one. The caller holds the agent's lock.
func (r *Runtime) adopt(op string, rec *record) (bool, error) {
	if rec.running() {
		return false, nil
	}
	for _, p := range agentsOnly(r.processesOf(rec.ID)) {
		rec.process = process{PID: p.PID, StartTime: p.StartTime, BootID: bootID(), ConfigSHA256: p.ConfigSHA,
			Supervisor: rec.Supervisor, Restarts: rec.Restarts}
		return true, r.saveProcess(op, rec)
	}
	return false, nil
}
