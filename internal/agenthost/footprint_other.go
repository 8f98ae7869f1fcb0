//go:build !linux

package agenthost

import "runtime/debug"

// releasePages returns garbage to the system; dropping the executable's
// pages is done on Linux only.
func releasePages() { debug.FreeOSMemory() }
