package agenthost

import (
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// The calls a host serves, on every binding, at once share a budget: each is
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
	// inUse is what the calls running now are charged, for telemetry.
	inUse atomic.Int64
}

func newBudget() *budget {
	return &budget{sem: semaphore.NewWeighted(requestBudget)}
}

// acquire charges a call for the body it declares, or for the largest
// body when it declares none (a chunked body), and says whether it fits.
// release gives the charge back.
func (b *budget) acquire(declared, maxBytes int64) (release func(), ok bool) {
	cost := declared
	if cost < 0 || cost > maxBytes {
		cost = maxBytes
	}
	cost = max(cost, minRequestCost)
	if !b.sem.TryAcquire(cost) {
		return nil, false
	}
	b.inUse.Add(cost)
	return func() {
		b.inUse.Add(-cost)
		b.sem.Release(cost)
	}, true
}
