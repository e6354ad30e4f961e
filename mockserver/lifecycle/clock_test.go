package lifecycle

import (
	"math"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestSystemClockIsRealTime(t *testing.T) {
	before := time.Now()
	got := SystemClock{}.Now()
	after := time.Now()
	if got.Before(before) || got.After(after) {
		t.Fatalf("SystemClock.Now() = %v, want within [%v, %v]", got, before, after)
	}
}

func TestFakeClock(t *testing.T) {
	c := NewFakeClock(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("Now() = %v, want %v", got, t0)
	}
	c.Advance(90 * time.Second)
	if got, want := c.Now(), t0.Add(90*time.Second); !got.Equal(want) {
		t.Fatalf("after Advance: %v, want %v", got, want)
	}
	c.Advance(-30 * time.Second) // fake clocks may go back to model skew
	if got, want := c.Now(), t0.Add(60*time.Second); !got.Equal(want) {
		t.Fatalf("after negative Advance: %v, want %v", got, want)
	}
	later := t0.Add(24 * time.Hour)
	c.Set(later)
	if got := c.Now(); !got.Equal(later) {
		t.Fatalf("after Set: %v, want %v", got, later)
	}
}

func TestOffsetClock(t *testing.T) {
	base := NewFakeClock(t0)
	c := NewOffsetClock(base)
	if c.Offset() != 0 || !c.Now().Equal(t0) {
		t.Fatalf("new clock: offset %v now %v, want 0 and %v", c.Offset(), c.Now(), t0)
	}
	c.Advance(time.Hour)
	c.Advance(0)            // ignored
	c.Advance(-time.Minute) // ignored: time only moves forward
	if got := c.Offset(); got != time.Hour {
		t.Fatalf("Offset() = %v, want 1h", got)
	}
	base.Advance(time.Minute) // the base keeps driving the clock
	if got, want := c.Now(), t0.Add(time.Hour+time.Minute); !got.Equal(want) {
		t.Fatalf("Now() = %v, want %v", got, want)
	}
}

func TestOffsetClockSaturates(t *testing.T) {
	c := NewOffsetClock(NewFakeClock(t0))
	c.Advance(math.MaxInt64 - 5)
	c.Advance(time.Hour)
	if got := c.Offset(); got != math.MaxInt64 {
		t.Fatalf("Offset() = %v, want saturated at MaxInt64", got)
	}
}

func TestOffsetClockNilBaseIsSystem(t *testing.T) {
	c := NewOffsetClock(nil)
	c.Advance(time.Hour)
	got := c.Now()
	if d := got.Sub(time.Now()); d < 59*time.Minute || d > 61*time.Minute {
		t.Fatalf("Now() - time.Now() = %v, want ~1h", d)
	}
}

// Each account has its own OffsetClock over a shared base: advancing one
// must not move the other.
func TestOffsetClocksAreIndependent(t *testing.T) {
	base := NewFakeClock(t0)
	a, b := NewOffsetClock(base), NewOffsetClock(base)
	a.Advance(10 * time.Minute)
	if !b.Now().Equal(t0) || b.Offset() != 0 {
		t.Fatalf("account b moved: now %v offset %v", b.Now(), b.Offset())
	}
	tr := Training{CreatedAt: t0, Duration: 10 * time.Minute}
	if s := TrainingState(tr, a.Now()); s.Status != StatusReady {
		t.Errorf("account a model status = %q, want ready", s.Status)
	}
	if s := TrainingState(tr, b.Now()); s.Status != StatusPending {
		t.Errorf("account b model status = %q, want pending", s.Status)
	}
}

// Run with -race: concurrent readers and writers of both clocks.
func TestClocksConcurrentUse(t *testing.T) {
	base := NewFakeClock(t0)
	off := NewOffsetClock(base)
	const workers, iters = 8, 500
	var wg sync.WaitGroup
	for range workers {
		wg.Add(3)
		go func() {
			defer wg.Done()
			for range iters {
				base.Advance(time.Millisecond)
			}
		}()
		go func() {
			defer wg.Done()
			for range iters {
				off.Advance(time.Second)
			}
		}()
		go func() {
			defer wg.Done()
			prev := off.Now()
			for range iters {
				// Both parts only move forward here, so reads are monotonic.
				now := off.Now()
				if now.Before(prev) {
					t.Errorf("OffsetClock went backwards: %v then %v", prev, now)
					return
				}
				prev = now
				_ = off.Offset()
				_ = base.Now()
			}
		}()
	}
	wg.Wait()
	if got, want := off.Offset(), workers*iters*time.Second; got != want {
		t.Errorf("Offset() = %v, want %v", got, want)
	}
	if got, want := base.Now(), t0.Add(workers*iters*time.Millisecond); !got.Equal(want) {
		t.Errorf("base.Now() = %v, want %v", got, want)
	}
}

// Set racing with readers and Advance must be race-free; there is no value
// to assert because the interleaving decides which write wins.
func TestFakeClockSetConcurrent(t *testing.T) {
	c := NewFakeClock(t0)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(3)
		go func() {
			defer wg.Done()
			for j := range 200 {
				c.Set(t0.Add(time.Duration(i*j) * time.Second))
			}
		}()
		go func() {
			defer wg.Done()
			for range 200 {
				c.Advance(time.Second)
			}
		}()
		go func() {
			defer wg.Done()
			for range 200 {
				_ = c.Now()
			}
		}()
	}
	wg.Wait()
}
