package lifecycle

import (
	"math"
	"sync"
	"time"
)

// Clock tells the current time. Every time-dependent decision in the mock
// goes through a Clock so that tests and the admin endpoint can control time
// instead of waiting for it.
type Clock interface {
	// Now returns the current time according to this clock.
	Now() time.Time
}

// SystemClock is the real wall clock. Its zero value is ready to use.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// FakeClock is a manually driven clock for tests. It only moves when Advance
// or Set is called, so tests can hit exact boundaries (just before, at, just
// after a deadline) without sleeping. It is safe for concurrent use.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock returns a FakeClock stopped at t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

// Now returns the clock's current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d. A negative d moves it backwards; unlike
// OffsetClock this is allowed because tests sometimes need to model clock
// skew deliberately.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set jumps the clock to t.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// OffsetClock is a base clock shifted forward by an adjustable offset. The
// mock gives each account its own OffsetClock, so the admin endpoint that
// "advances the clock" for one account makes that account's trainings and
// evaluations finish without affecting any other account. It is safe for
// concurrent use.
type OffsetClock struct {
	base Clock

	mu     sync.Mutex
	offset time.Duration
}

// NewOffsetClock returns an OffsetClock over base with a zero offset. A nil
// base means SystemClock, which is what production wiring wants.
func NewOffsetClock(base Clock) *OffsetClock {
	if base == nil {
		base = SystemClock{}
	}
	return &OffsetClock{base: base}
}

// Now returns the base clock's time plus the current offset.
func (c *OffsetClock) Now() time.Time {
	c.mu.Lock()
	off := c.offset
	c.mu.Unlock()
	// Read the base outside the lock: the base may have its own lock and
	// there is no need to serialise readers of different clocks.
	return c.base.Now().Add(off)
}

// Advance moves the clock forward by d. Non-positive values are ignored:
// states are derived from timestamps, so moving an account's time backwards
// would make finished resources appear to un-finish, which no real server
// does. Handlers should reject negative input with a 400 before calling this.
// The offset saturates instead of overflowing.
func (c *OffsetClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.offset > math.MaxInt64-d {
		c.offset = math.MaxInt64
		return
	}
	c.offset += d
}

// Offset returns the total amount the clock has been advanced.
func (c *OffsetClock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}
