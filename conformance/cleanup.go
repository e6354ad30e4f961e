package conformance

import (
	"context"
	"sync"
	"time"

	"contractkit/bound"
)

// A clean-up has its own time: every phase's clean-up (a check's
// DeferCleanup, the suite's AfterSuite, the explore phase's two parts)
// runs on a context of its own, bounded by cleanupTime, never on the
// phase's, which may have run out already (a slow server spends a part's
// whole time; what it made must still go). And it is bounded whatever the
// server does: each request by the client's timeout and the stall rule
// (an operation that stopped answering is withheld), the waits for
// refused deletes by deleteWaits.

// cleanupTime bounds one clean-up: its waits for refused deletes (at most
// --timeout in all, deleteWaits) and a minute for its requests.
func (e *env) cleanupTime() time.Duration { return e.cfg.Timeout + time.Minute }

// cleanupContext is a clean-up's own context: parent's values, not its
// end (the phase may be over), bounded by cleanupTime.
func (e *env) cleanupContext(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(parent), e.cleanupTime())
}

// deleteWaits bounds the clean-up's waits for deletes the server refuses
// (an evaluation still running is refused until it ends), per kind of
// resource, over the whole run: the waits that ended with the delete still
// refused share one --timeout, and after bound.DefaultStall of them the
// kind is waited for no more: each remaining resource of that kind is
// tried once, and what stays is reported left behind. Against a server
// that refuses every delete of a kind, the clean-up costs one --timeout,
// not one per resource. A wait that ends with the resource gone costs
// nothing: a running evaluation that ends is what the wait is for.
type deleteWaits struct {
	mu sync.Mutex
	// left is the waiting each kind has left; refused counts its waits
	// that ended refused.
	left    map[string]time.Duration
	refused map[string]int
}

// allowance is how long the next wait for a delete of kind may last (0:
// no wait, try once), given the run's --timeout.
func (w *deleteWaits) allowance(kind string, timeout time.Duration) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.left == nil {
		w.left, w.refused = map[string]time.Duration{}, map[string]int{}
	}
	left, seen := w.left[kind]
	if !seen {
		left = timeout
		w.left[kind] = left
	}
	if w.refused[kind] >= bound.DefaultStall {
		return 0
	}
	return max(left, 0)
}

// waited records a wait for a delete of kind that lasted took and ended
// with the resource gone or not.
func (w *deleteWaits) waited(kind string, took time.Duration, gone bool) {
	if gone {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.left[kind] -= took
	w.refused[kind]++
}
