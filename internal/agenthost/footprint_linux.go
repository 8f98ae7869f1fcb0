package agenthost

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// releasePages gives back memory an idle agent does not need. The host runs inside the provider's executable,
// which links Terraform's plugin machinery, gRPC, protobuf and the Docker
// client: their package initialisers run in every agent, touching pages
// all over the executable and allocating garbage, which doubled the
// resident memory of an idle agent against the same host built alone.
//
// A garbage collection touches them again too: it reads the type of every
// object it scans and the tables of every function on a stack, so the host
// releases pages again whenever it has gone quiet after activity (see
// trimWhenIdle).
//
// It returns the garbage to the system, then drops the executable's
// read-only pages from this process's page tables. Those pages stay in the
// page cache, shared by every agent running the same executable, and the
// few the host needs again fault back in from there. Only mappings of the
// executable no one has written to (no anonymous, copy-on-write pages) are
// dropped, so no relocated or modified data is lost.
func releasePages() {
	debug.FreeOSMemory()
	exe, err := os.Executable()
	if err != nil {
		return
	}
	smaps, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer func() { _ = smaps.Close() }()
	var candidates []memoryRange
	var current *memoryRange
	sc := bufio.NewScanner(smaps)
	for sc.Scan() {
		line := sc.Text()
		if r, ok := parseMapping(line, exe); ok || isMappingHeader(line) {
			current = nil
			if ok {
				candidates = append(candidates, r)
				current = &candidates[len(candidates)-1]
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Anonymous:"); ok && current != nil {
			current.written = strings.TrimSuffix(strings.TrimSpace(rest), " kB") != "0"
		}
	}
	for _, r := range candidates {
		if !r.written {
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, syscall.MADV_DONTNEED)
		}
	}
}

// memoryRange is a read-only mapping of the executable.
type memoryRange struct {
	start, end uintptr
	written    bool // holds anonymous (copy-on-write) pages
}

// isMappingHeader reports whether a line of smaps starts a mapping
// ("start-end perms offset dev inode [path]") rather than describing one
// ("Key: value").
func isMappingHeader(line string) bool {
	first, _, _ := strings.Cut(line, " ")
	return strings.Contains(first, "-") && !strings.HasSuffix(first, ":")
}

// parseMapping returns the range of a mapping header line when it maps
// exe read-only.
func parseMapping(line, exe string) (memoryRange, bool) {
	fields := strings.Fields(line)
	if len(fields) < 6 || fields[5] != exe || strings.Contains(fields[1], "w") || !isMappingHeader(line) {
		return memoryRange{}, false
	}
	lo, hi, _ := strings.Cut(fields[0], "-")
	start, err := strconv.ParseUint(lo, 16, 64)
	if err != nil {
		return memoryRange{}, false
	}
	end, err := strconv.ParseUint(hi, 16, 64)
	if err != nil {
		return memoryRange{}, false
	}
	return memoryRange{start: uintptr(start), end: uintptr(end)}, true
}
