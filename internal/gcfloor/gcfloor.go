// Package gcfloor keeps the Go heap's collection target at or above a
// floor while the live heap is small, and at a chosen GOGC (the base) once
// the live heap is past it.
//
// The mock's live heap is small (the contract's compiled schemas and the
// fixtures: about 12 MB) while every request allocates a few kilobytes, so
// under load the default GOGC=100 runs a collection every thousand or so
// requests, each marking the whole contract again: a profile showed about a
// fifth of the mock's CPU per answer in the collector. A floor of some tens
// of megabytes makes collections rare while the heap is small. Once the
// live heap is large (thousands of open streams) the floor does nothing and
// the base rules, and a base under 100 then trades some collector CPU for
// less memory per open stream. This is the "minimum heap" the Go GC guide
// describes, done by adjusting GOGC after each cycle rather than with a
// ballast.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Percent is the GOGC that puts the next target (live × (1 + GOGC/100)) at
// the floor, never below base (the GOGC in force without a floor) nor above
// ceiling (so a near-empty heap does not get an absurd setting).
func Percent(live, floor uint64, base, ceiling int) int {
	if live == 0 || floor <= live {
		return base
	}
	p := int((floor - live) * 100 / live)
	return min(max(p, base), ceiling)
}

// maxPercent bounds the setting for a nearly empty heap.
const maxPercent = 1000

// Tuner re-sets GOGC after every collection. Stop it to restore GOGC.
type Tuner struct {
	floor   uint64
	base    int
	mu      sync.Mutex
	stopped bool
	current int
	sample  []metrics.Sample
}

// Start keeps the collection target at or above floor bytes, with base as
// the GOGC once the live heap is past it (the caller passes the GOGC it
// would otherwise run with, normally 100).
func Start(floor uint64, base int) *Tuner {
	t := &Tuner{floor: floor, base: base, current: base,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.adjust()
	t.arm()
	return t
}

// arm puts a finalizer on a fresh object: it runs after the next
// collection, which is when the live heap is known again.
func (t *Tuner) arm() {
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		t.mu.Lock()
		stopped := t.stopped
		t.mu.Unlock()
		if stopped {
			return
		}
		t.adjust()
		t.arm()
	})
}

func (t *Tuner) adjust() {
	metrics.Read(t.sample)
	live := uint64(0)
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		live = t.sample[0].Value.Uint64()
	}
	p := Percent(live, t.floor, t.base, maxPercent)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped || p == t.current {
		return
	}
	t.current = p
	debug.SetGCPercent(p)
}

// Current is the GOGC the tuner last set.
func (t *Tuner) Current() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.current
}

// Stop ends the tuning and puts base back.
func (t *Tuner) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(t.base)
	}
}
