package agenthost

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"golang.org/x/sync/semaphore"
)

// The JSON-RPC requests a host serves at once share a budget: each is
// charged the size of its body, at least minRequestCost, from the moment
// its body is read until its answer (or stream) ends. So at most
// requestBudget/minRequestCost (32) requests run at once, and at most four
// whose bodies come near maxRequestBytes, which keeps the memory the
// bodies and their work hold bounded whatever clients send. A request
// over the budget is refused at once rather than queued: a queue would
// hold the same memory, only later.
const (
	requestBudget  = 4 * maxRequestBytes
	minRequestCost = requestBudget / 32
	// busyRetryAfter is the Retry-After, in seconds, of a refusal.
	busyRetryAfter = 1
)

// budget hands out requestBudget; the zero value is unusable.
type budget struct {
	sem *semaphore.Weighted
}

func newBudget() *budget {
	return &budget{sem: semaphore.NewWeighted(requestBudget)}
}

// acquire charges a request for the body it declares, or for the largest
// body when it declares none (a chunked body), and says whether it fits.
// release gives the charge back.
func (b *budget) acquire(r *http.Request, maxBytes int64) (release func(), ok bool) {
	cost := r.ContentLength
	if cost < 0 || cost > maxBytes {
		cost = maxBytes
	}
	cost = max(cost, minRequestCost)
	if !b.sem.TryAcquire(cost) {
		return nil, false
	}
	return func() { b.sem.Release(cost) }, true
}

// refuseBusy answers a request the budget has no room for: 503 with a
// Retry-After, as the specification suggests for a temporary failure
// (section 3.3.2), and a JSON-RPC internal error saying what to do. The id
// is null since the body was not read.
func refuseBusy(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(busyRetryAfter))
	writeRPCError(w, http.StatusServiceUnavailable, nil, codeInternalError,
		fmt.Sprintf("this agent is serving as many requests as it takes at once (%d, or %d with bodies near the %d-byte limit); retry in %d s",
			requestBudget/minRequestCost, requestBudget/maxRequestBytes, maxRequestBytes, busyRetryAfter),
		a2a.ErrInternalError)
}
