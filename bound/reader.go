package bound

import (
	"io"
	"sync"
	"time"
)

// Limits bound one read. A zero field is no bound.
type Limits struct {
	// Bytes bounds the whole body or stream.
	Bytes int64
	// Event bounds one event of an event stream: the bytes between two
	// blank lines. Event or Idle makes the Reader watch event boundaries.
	Event int64
	// Idle bounds the gap between two events of a stream (and before the
	// first): a server that sends nothing, or drips bytes that never make
	// an event, is cut. Any complete event counts, a comment too: a
	// keep-alive is what a live server sends while it thinks.
	Idle time.Duration
	// Duration bounds the whole read.
	Duration time.Duration
	// Rate is the least bytes per second a read must keep, after Grace:
	// the read starts with Grace's worth of credit (Rate × Grace bytes),
	// spends Rate a second and earns what arrives, up to that much again,
	// so a burst cannot buy a drip more than Grace of patience.
	Rate  int64
	Grace time.Duration
}

// Default bounds. They keep the suite's memory under SuiteMemory
// (memory.go) and end every read promptly whatever the server does.
var (
	// Body bounds a JSON answer: 8 MiB (the proxy judges JSON up to the
	// same size), at least 1 KiB/s after 5 s (a byte every 2 s is cut
	// after about 5 s, not at the check's timeout).
	Body = Limits{Bytes: 8 << 20, Rate: 1 << 10, Grace: 5 * time.Second}
	// Stream bounds an inference stream: 32 MiB in all, 1 MiB an event,
	// 30 s between events, 2 minutes in all (the suite's default
	// --timeout; the client sets its own).
	Stream = Limits{Bytes: 32 << 20, Event: 1 << 20, Idle: 30 * time.Second, Duration: 2 * time.Minute}
)

// Reader reads r within its Limits. When a bound is reached it calls cut
// (which must unblock a pending Read of r: the request context's cancel,
// or closing the body), and Read returns an *Error from then on. It is
// meant for one reading goroutine; its timer runs beside it. Close stops
// the timer.
type Reader struct {
	r     io.Reader
	lim   Limits
	cut   func()
	clock clock

	mu     sync.Mutex // guards everything below
	start  time.Time
	n      int64
	err    *Error
	timer  timer
	closed bool
	// rate credit, in bytes, as of creditAt
	credit   float64
	creditAt time.Time
	// event boundaries: bytes of the current event, when the last ended,
	// and where the line scanner stands
	events      bool
	eventBytes  int64
	lastEvent   time.Time
	atLineStart bool
	pendingCR   int // crNone, crEndedLine or crEndedEvent
}

// NewReader starts bounding r now (call it when the headers have arrived).
func NewReader(r io.Reader, lim Limits, cut func()) *Reader {
	return newReader(r, lim, cut, realClock{})
}

func newReader(r io.Reader, lim Limits, cut func(), c clock) *Reader {
	if cut == nil {
		cut = func() {}
	}
	b := &Reader{r: r, lim: lim, cut: cut, clock: c, events: lim.Event > 0 || lim.Idle > 0, atLineStart: true}
	now := c.Now()
	b.start, b.creditAt, b.lastEvent = now, now, now
	b.credit = float64(lim.Rate) * lim.Grace.Seconds()
	b.mu.Lock()
	b.arm(now)
	b.mu.Unlock()
	return b
}

// ReadAll reads r to its end within lim: the bytes read (up to the bound)
// and nil, an *Error, or the transport's error. Its buffer is a pooled one
// of the bound's size (Collect): reading a flood allocates nothing past the
// copy of what it returns.
func ReadAll(r io.Reader, lim Limits, cut func()) ([]byte, error) {
	b := NewReader(r, lim, cut)
	defer b.Close()
	return Collect(b, -1, lim.Bytes, false)
}

// Read reads within the bounds.
func (b *Reader) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.err != nil {
		defer b.mu.Unlock()
		return 0, b.err
	}
	if b.lim.Bytes > 0 && int64(len(p)) > b.lim.Bytes-b.n+1 {
		p = p[:b.lim.Bytes-b.n+1] // one byte over tells a body at the bound from one past it
	}
	b.mu.Unlock()

	n, err := b.r.Read(p)

	b.mu.Lock()
	if b.err != nil { // the timer cut while r was blocked
		b.n += int64(n)
		defer b.mu.Unlock()
		return n, b.err
	}
	now := b.clock.Now()
	if n > 0 {
		n = b.take(p[:n], now)
	}
	if b.err == nil && b.lim.Rate > 0 && b.spent(now) {
		b.fail(TooSlow, now)
	}
	if b.err != nil {
		e := b.err
		b.stop()
		b.mu.Unlock()
		b.cut()
		return n, e
	}
	b.arm(now)
	b.mu.Unlock()
	return n, err
}

// take accounts for the bytes just read and returns how many of them are
// within the bounds (all, unless one was reached: then b.err is set).
func (b *Reader) take(p []byte, now time.Time) int {
	keep, reason := len(p), Reason("")
	if b.events {
		if i, over := b.scan(p, now); over {
			keep, reason = i, OverEvent
		}
	}
	if b.lim.Bytes > 0 && b.n+int64(keep) > b.lim.Bytes {
		keep, reason = int(b.lim.Bytes-b.n), OverBody
		if b.events {
			reason = OverStream
		}
	}
	b.n += int64(keep)
	if b.lim.Rate > 0 {
		drained := b.credit - float64(b.lim.Rate)*now.Sub(b.creditAt).Seconds()
		b.credit, b.creditAt = drained, now
		if drained > 0 { // past due, no byte buys the read back
			b.credit = min(float64(b.lim.Rate)*b.lim.Grace.Seconds(), drained+float64(keep))
		}
	}
	if reason != "" {
		b.fail(reason, now)
	}
	return keep
}

// scan follows the event stream's lines (LF, CRLF or a lone CR end a
// line; a blank line ends an event) and counts each event's bytes, its
// lines' ends included, the blank line's not. over reports that the byte
// at i took the event past its bound.
func (b *Reader) scan(p []byte, now time.Time) (i int, over bool) {
	for i, c := range p {
		switch {
		case c == '\n' && b.pendingCR != crNone:
			ended := b.pendingCR == crEndedEvent
			b.pendingCR = crNone // the LF of a CRLF: the CR ended the line
			if ended {
				continue
			}
		case c == '\n' || c == '\r':
			b.pendingCR = crNone
			if b.atLineStart {
				b.eventBytes, b.lastEvent = 0, now // a blank line: the event ends
				if c == '\r' {
					b.pendingCR = crEndedEvent
				}
				continue
			}
			if c == '\r' {
				b.pendingCR = crEndedLine
			}
			b.atLineStart = true
		default:
			b.pendingCR, b.atLineStart = crNone, false
		}
		b.eventBytes++
		if b.lim.Event > 0 && b.eventBytes > b.lim.Event {
			return i, true
		}
	}
	return len(p), false
}

// A CR just read: none, one that ended a line of an event, or one that
// ended an event (a blank line). The LF that may follow belongs to it.
const (
	crNone = iota
	crEndedLine
	crEndedEvent
)

// spent reports that the rate credit has run out by now.
func (b *Reader) spent(now time.Time) bool {
	return b.credit-float64(b.lim.Rate)*now.Sub(b.creditAt).Seconds() <= 0
}

func (b *Reader) fail(r Reason, now time.Time) {
	e := &Error{Reason: r, Read: b.n, After: now.Sub(b.start)}
	switch r {
	case OverBody, OverStream:
		e.Limit = b.lim.Bytes
	case OverEvent:
		e.Limit = b.lim.Event
	case TooSlow:
		e.Limit, e.Wait = b.lim.Rate, b.lim.Grace
	case Idle:
		e.Wait = b.lim.Idle
	case TooLong:
		e.Wait = b.lim.Duration
	}
	b.err = e
}

// due is the time bound passed at now, or "".
func (b *Reader) due(now time.Time) Reason {
	switch {
	case b.lim.Duration > 0 && now.Sub(b.start) >= b.lim.Duration:
		return TooLong
	case b.lim.Idle > 0 && now.Sub(b.lastEvent) >= b.lim.Idle:
		return Idle
	case b.lim.Rate > 0 && b.spent(now):
		return TooSlow
	}
	return ""
}

// arm sets the timer to the nearest time bound.
func (b *Reader) arm(now time.Time) {
	if b.closed {
		return
	}
	var next time.Time
	soonest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	if b.lim.Duration > 0 {
		soonest(b.start.Add(b.lim.Duration))
	}
	if b.lim.Idle > 0 {
		soonest(b.lastEvent.Add(b.lim.Idle))
	}
	if b.lim.Rate > 0 {
		left := b.credit - float64(b.lim.Rate)*now.Sub(b.creditAt).Seconds()
		soonest(now.Add(time.Duration(left / float64(b.lim.Rate) * float64(time.Second))))
	}
	if next.IsZero() {
		return
	}
	d := max(next.Sub(now), 0)
	if b.timer == nil {
		b.timer = b.clock.AfterFunc(d, b.fire)
	} else {
		b.timer.Reset(d)
	}
}

// fire runs on the timer: it cuts the read if a time bound has passed, or
// sets the timer again (progress moved the bound).
func (b *Reader) fire() {
	b.mu.Lock()
	if b.err != nil || b.closed {
		b.mu.Unlock()
		return
	}
	now := b.clock.Now()
	reason := b.due(now)
	if reason == "" {
		b.arm(now)
		b.mu.Unlock()
		return
	}
	b.fail(reason, now)
	b.mu.Unlock()
	b.cut()
}

func (b *Reader) stop() {
	if b.timer != nil {
		b.timer.Stop()
	}
}

// Err is the bound that cut the read, or nil.
func (b *Reader) Err() *Error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// N is how many bytes were read within the bounds.
func (b *Reader) N() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// Close stops the timer. It does not close the underlying reader.
func (b *Reader) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.stop()
	return nil
}
