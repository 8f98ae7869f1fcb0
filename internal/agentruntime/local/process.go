//go:build linux

package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// procIdentity is what /proc says of a pid: its scheduler state and its
// start time in clock ticks after boot. The pair (pid, start time) names one
// process for the life of the machine, so a recycled pid is told apart.
type procIdentity struct {
	state     byte
	startTime uint64
}

// readProc reads /proc/<pid>/stat; a missing process is an error.
func readProc(pid int) (procIdentity, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procIdentity{}, err
	}
	id, err := parseStat(data)
	if err != nil {
		return procIdentity{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return id, nil
}

// parseStat reads the state and start time from the text of /proc/<pid>/stat.
func parseStat(data []byte) (procIdentity, error) {
	// The command name (field 2) is in parentheses and may itself hold
	// spaces or parentheses; the fields after the last ')' are plain.
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return procIdentity{}, errors.New("unexpected format")
	}
	fields := bytes.Fields(data[end+1:])
	// fields[0] is field 3 (state); field 22 (starttime) is fields[19].
	const startTimeIndex = 22 - 3
	if len(fields) <= startTimeIndex || len(fields[0]) != 1 {
		return procIdentity{}, errors.New("unexpected format")
	}
	start, err := strconv.ParseUint(string(fields[startTimeIndex]), 10, 64)
	if err != nil {
		return procIdentity{}, fmt.Errorf("start time: %w", err)
	}
	return procIdentity{state: fields[0][0], startTime: start}, nil
}

// bootID identifies the running boot of the machine, so that a process
// recorded in an earlier boot is never matched by pid and start time alone.
var bootID = sync.OnceValue(func() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(data))
})

// startTimeOf returns the start time of a live process.
func startTimeOf(pid int) (uint64, error) {
	id, err := readProc(pid)
	if err != nil {
		return 0, fmt.Errorf("read start time of pid %d: %w", pid, err)
	}
	return id.startTime, nil
}

// alive reports whether the process that was started as pid at startTime
// still runs. A zombie (Z) or dying (X) process has exited: it only waits
// for its parent to collect the status. A pid now held by another process
// has another start time.
func alive(pid int, startTime uint64) bool {
	if pid <= 0 {
		return false
	}
	id, err := readProc(pid)
	if err != nil {
		return false
	}
	return id.startTime == startTime && id.state != 'Z' && id.state != 'X'
}

// signalGroup signals the agent's process group (its pid, as it leads its
// own session), so that anything it spawned goes with it; but only while the
// pid still names the agent, so a recycled pid is never signalled.
func signalGroup(pid int, startTime uint64, sig syscall.Signal) error {
	if !alive(pid, startTime) {
		return nil
	}
	target := -pid
	if pgid, err := syscall.Getpgid(pid); err == nil && pgid != pid {
		// A process the agent spawned, found by the identity it inherited,
		// that leads no group of its own.
		target = pid
	}
	err := syscall.Kill(target, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
