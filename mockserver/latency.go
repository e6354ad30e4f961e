package mockserver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Delays — --latency, X-Mock-Delay, an override's delay and its stream
// pace — are a fixed duration or a range. A range is drawn per call from a
// source seeded by --seed, the account and what asks (the latency of the
// account's Nth call, the Kth use of override 3), never from the wall
// clock: the same calls with the same seed wait the same, and a test can
// say which delay a call got. The waiting itself goes through timerSource,
// which tests replace, so that no test sleeps.

// delaySpec is a delay: min = max for a fixed one.
type delaySpec struct{ min, max time.Duration }

func (d delaySpec) isZero() bool { return d.max <= 0 }

func (d delaySpec) String() string {
	if d.min == d.max {
		return d.min.String()
	}
	return d.min.String() + ".." + d.max.String()
}

// pick is the delay at u, a fraction within [0, 1): min for 0, towards max.
func (d delaySpec) pick(u float64) time.Duration {
	return d.min + time.Duration(u*float64(d.max-d.min))
}

// plus adds two delays, bounds to bounds.
func (d delaySpec) plus(e delaySpec) delaySpec { return delaySpec{d.min + e.min, d.max + e.max} }

// parseDelaySpec reads "250ms", "2s", a bare number of milliseconds, or a
// range of two of them, "100ms..900ms"; each within 0..MaxDelay, the
// range's lower bound first.
func parseDelaySpec(s string) (delaySpec, error) {
	first, second, isRange := strings.Cut(strings.TrimSpace(s), "..")
	lo, err := parseDuration(first)
	if err != nil {
		return delaySpec{}, err
	}
	if !isRange {
		return delaySpec{lo, lo}, nil
	}
	hi, err := parseDuration(second)
	if err != nil {
		return delaySpec{}, err
	}
	return newRange(lo, hi)
}

func newRange(lo, hi time.Duration) (delaySpec, error) {
	if hi < lo {
		return delaySpec{}, fmt.Errorf("a range's lower bound first (got %s..%s)", lo, hi)
	}
	return delaySpec{lo, hi}, nil
}

// parseDuration reads one bound: "250ms", "2s" or a number of milliseconds.
func parseDuration(h string) (time.Duration, error) {
	h = strings.TrimSpace(h)
	d, err := time.ParseDuration(h)
	if err != nil {
		ms, err2 := strconv.Atoi(h)
		if err2 != nil {
			return 0, errors.New("expected a duration such as 250ms or 2s, or a range such as 100ms..900ms")
		}
		d = time.Duration(ms) * time.Millisecond
	}
	if d < 0 || d > MaxDelay {
		return 0, fmt.Errorf("must not be negative nor over %s", MaxDelay)
	}
	return d, nil
}

// parseDelayJSON reads a delay as JSON carries it: "2s", "100ms..900ms" or
// {"min": "100ms", "max": "900ms"}.
func parseDelayJSON(b json.RawMessage) (delaySpec, error) {
	var s string
	if json.Unmarshal(b, &s) == nil {
		return parseDelaySpec(s)
	}
	var r struct {
		Min *string `json:"min"`
		Max *string `json:"max"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil || r.Min == nil || r.Max == nil {
		return delaySpec{}, errors.New(`a duration such as "2s", or a range: "100ms..900ms" or {"min": "100ms", "max": "900ms"}`)
	}
	lo, err := parseDuration(*r.Min)
	if err != nil {
		return delaySpec{}, fmt.Errorf("min: %v", err)
	}
	hi, err := parseDuration(*r.Max)
	if err != nil {
		return delaySpec{}, fmt.Errorf("max: %v", err)
	}
	return newRange(lo, hi)
}

// jitter draws the fractions delays are picked at, seeded.
type jitter struct {
	seed int64

	mu     sync.Mutex
	counts map[string]uint64 // per account: the calls whose latency was drawn
}

// next numbers an account's calls that draw a latency.
func (j *jitter) next(account string) uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.counts == nil {
		j.counts = map[string]uint64{}
	}
	j.counts[account]++
	return j.counts[account]
}

// source is the seeded random source for what (a purpose and its numbers)
// in account.
func (j *jitter) source(account, what string, n ...uint64) *rand.Rand {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(j.seed))
	h.Write(b[:])
	h.Write([]byte(account))
	h.Write([]byte{0})
	h.Write([]byte(what))
	for _, x := range n {
		binary.LittleEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	return rand.New(rand.NewPCG(h.Sum64(), 0x6a6974746572121))
}

// fraction is one draw for what in account, within [0, 1).
func (j *jitter) fraction(account, what string, n ...uint64) float64 {
	return j.source(account, what, n...).Float64()
}

// streamPace is an override's token pace: a fixed pause, or one drawn per
// token from the override's seeded source.
type streamPace struct {
	spec delaySpec
	rng  *rand.Rand
}

// next is the pause before the next token.
func (p *streamPace) next() time.Duration {
	if p.spec.min == p.spec.max {
		return p.spec.min
	}
	return p.spec.pick(p.rng.Float64())
}

// timerSource makes the timers the mock waits on: a delay, a stream's
// pace. Tests give one that fires at once and notes what was asked.
type timerSource interface {
	newTimer(d time.Duration) waitTimer
}

// waitTimer is what the mock needs of a timer.
type waitTimer interface {
	C() <-chan time.Time
	Reset(d time.Duration)
	Stop()
}

// realTimers are the runtime's.
type realTimers struct{}

type realTimer struct{ t *time.Timer }

func (realTimers) newTimer(d time.Duration) waitTimer { return realTimer{time.NewTimer(d)} }
func (t realTimer) C() <-chan time.Time               { return t.t.C }
func (t realTimer) Reset(d time.Duration)             { t.t.Reset(d) }
func (t realTimer) Stop()                             { t.t.Stop() }

// ParseDelayRange reads a delay as the command line gives it ("250ms",
// "2s", or a range "100ms..900ms") into its bounds (equal for a fixed one).
func ParseDelayRange(s string) (lo, hi time.Duration, err error) {
	d, err := parseDelaySpec(s)
	return d.min, d.max, err
}
