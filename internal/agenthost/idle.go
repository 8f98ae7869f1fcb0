package agenthost

import (
	"context"
	"net/http"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// quietPeriod is how long the host waits without a request before it
// releases memory again: long enough that a burst of calls does not pay
// for faulting pages back in, short enough that an idle fleet stays small.
const quietPeriod = 5 * time.Second

// activity counts the requests a host serves, for trimWhenIdle.
type activity struct {
	inFlight atomic.Int64
	served   atomic.Uint64
	lastEnd  atomic.Int64 // unix nanoseconds
}

func (a *activity) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.inFlight.Add(1)
		defer func() {
			a.lastEnd.Store(time.Now().UnixNano())
			a.served.Add(1)
			a.inFlight.Add(-1)
		}()
		next.ServeHTTP(w, r)
	})
}

// trimWhenIdle releases memory once the host is up, and again whenever it
// has gone quiet after serving requests or collecting garbage, until ctx
// ends.
func (h *Host) trimWhenIdle(ctx context.Context) {
	releasePages()
	served, cycles := h.worked(), gcCycles()
	tick := time.NewTicker(quietPeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		busy := h.activity.inFlight.Load() > 0 || time.Since(time.Unix(0, h.activity.lastEnd.Load())) < quietPeriod
		if busy || (h.worked() == served && gcCycles() == cycles) {
			continue
		}
		releasePages()
		// Releasing collects garbage itself; count from after it.
		served, cycles = h.worked(), gcCycles()
	}
}

var gcCyclesSample = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}

// gcCycles returns how many garbage collections have completed. Only
// trimWhenIdle's goroutine calls it.
func gcCycles() uint64 {
	metrics.Read(gcCyclesSample)
	return gcCyclesSample[0].Value.Uint64()
}

// worked counts what the host has done that faults pages back in: the
// requests it served, and the exports and scrapes of its telemetry, which
// run the exporters' code long after the call they report.
func (h *Host) worked() uint64 {
	return h.activity.served.Load() + h.telemetry.exportCount()
}
