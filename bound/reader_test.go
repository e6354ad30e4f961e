package bound

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves; timers due fire in the mover's
// goroutine, outside the clock's lock (fire takes the Reader's).
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c      *fakeClock
	at     time.Time
	f      func()
	active bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f, active: true}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.at, t.active = t.c.now.Add(d), true
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

// Advance moves the clock by d in steps of at most 10 ms, firing every
// timer that falls due at its own time.
func (c *fakeClock) Advance(d time.Duration) {
	for d > 0 {
		step := min(d, 10*time.Millisecond)
		d -= step
		c.mu.Lock()
		c.now = c.now.Add(step)
		var due []*fakeTimer
		for _, t := range c.timers {
			if t.active && !t.at.After(c.now) {
				t.active = false
				due = append(due, t)
			}
		}
		c.mu.Unlock()
		for _, t := range due {
			t.f()
		}
	}
}

// script is a server as a list of (wait, bytes): each Read waits its
// step's time on the fake clock (timers fire meanwhile), then returns its
// bytes; after the last step, EOF. A cut makes every later Read fail.
type script struct {
	c     *fakeClock
	steps []step
	cuts  int
}

type step struct {
	wait time.Duration
	data string
}

var errCut = errors.New("cut by the bound")

func (s *script) Read(p []byte) (int, error) {
	if s.cuts > 0 {
		return 0, errCut
	}
	if len(s.steps) == 0 {
		return 0, io.EOF
	}
	st := s.steps[0]
	for waited := time.Duration(0); waited < st.wait && s.cuts == 0; waited += 10 * time.Millisecond {
		s.c.Advance(min(10*time.Millisecond, st.wait-waited)) // a cut stops the waiting, as it unblocks a real read
	}
	if s.cuts > 0 {
		return 0, errCut
	}
	n := copy(p, st.data)
	if n < len(st.data) {
		s.steps[0].data, s.steps[0].wait = st.data[n:], 0
	} else {
		s.steps = s.steps[1:]
	}
	return n, nil
}

// read runs steps through a Reader with lim and returns what it read, its
// error, the time it took on the fake clock and how often it cut.
func read(t *testing.T, lim Limits, steps ...step) ([]byte, error, time.Duration, int) {
	t.Helper()
	c := newFakeClock()
	s := &script{c: c, steps: steps}
	b := newReader(s, lim, func() { s.cuts++ }, c)
	defer b.Close()
	start := c.Now()
	got, err := io.ReadAll(b)
	return got, err, c.Now().Sub(start), s.cuts
}

func repeat(n int, st step) []step {
	out := make([]step, n)
	for i := range out {
		out[i] = st
	}
	return out
}

func wantReason(t *testing.T, err error, r Reason) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Reason != r {
		t.Fatalf("got %v, want the %s bound", err, r)
	}
	return e
}

func TestBodyAtItsBoundIsWholeAndOneByteMoreIsCut(t *testing.T) {
	lim := Limits{Bytes: 10}
	got, err, _, cuts := read(t, lim, step{0, "12345"}, step{0, "67890"})
	if err != nil || string(got) != "1234567890" || cuts != 0 {
		t.Fatalf("at the bound: %q, %v, %d cuts", got, err, cuts)
	}
	got, err, _, cuts = read(t, lim, step{0, "12345"}, step{0, "678901"}, step{0, "more"})
	e := wantReason(t, err, OverBody)
	if string(got) != "1234567890" || cuts != 1 || e.Limit != 10 || e.Read != 10 {
		t.Fatalf("one over: %q, %+v, %d cuts", got, e, cuts)
	}
	if e.Error() != "the answer's body is over 10 bytes: reading stopped there" {
		t.Errorf("reason: %q", e)
	}
	if !errors.Is(err, ErrOverSize) || errors.Is(err, ErrDeadline) || Classify(err) != OverSize {
		t.Error("an over-size body is not classified as such")
	}
}

func TestADripIsCutAfterTheGrace(t *testing.T) {
	lim := Limits{Rate: 1024, Grace: 5 * time.Second}
	// A byte every 2 s: the 5 KiB of credit runs out at 5 s.
	got, err, took, cuts := read(t, lim, repeat(100, step{2 * time.Second, "x"})...)
	e := wantReason(t, err, TooSlow)
	if took < 5*time.Second || took > 6*time.Second || cuts != 1 || len(got) != 2 {
		t.Errorf("cut after %v with %d bytes and %d cuts, want about 5 s, 2 bytes, 1 cut", took, len(got), cuts)
	}
	if !errors.Is(err, ErrDeadline) || Classify(err) != Deadline {
		t.Error("a drip is not a deadline")
	}
	if !strings.HasPrefix(e.Error(), "the answer came slower than 1 KiB/s after 5s: 2 bytes in 5") {
		t.Errorf("reason: %q", e)
	}
	// A server that sends nothing at all is cut the same way.
	_, err, took, _ = read(t, lim, step{time.Hour, "late"})
	wantReason(t, err, TooSlow)
	if took > 6*time.Second {
		t.Errorf("a silent body held the read %v", took)
	}
}

func TestABurstBuysAtMostTheGrace(t *testing.T) {
	lim := Limits{Rate: 1024, Grace: 5 * time.Second}
	steps := append([]step{{0, strings.Repeat("b", 1<<20)}}, repeat(1000, step{2 * time.Second, "x"})...)
	got, err, took, _ := read(t, lim, steps...)
	wantReason(t, err, TooSlow)
	// 1 MiB would be 1024 s of credit without the cap; it buys 5 s.
	if took > 6*time.Second || len(got) < 1<<20 {
		t.Errorf("cut after %v with %d bytes, want about 5 s after the burst", took, len(got))
	}
}

func TestASteadySlowBodyIsNotCut(t *testing.T) {
	lim := Limits{Rate: 1024, Grace: 5 * time.Second}
	// 2 KiB a second for a minute, with a 4 s pause in the middle.
	steps := repeat(30, step{time.Second, strings.Repeat("s", 2048)})
	steps = append(steps, step{4 * time.Second, "p"})
	steps = append(steps, repeat(30, step{time.Second, strings.Repeat("s", 2048)})...)
	got, err, _, cuts := read(t, lim, steps...)
	if err != nil || cuts != 0 || len(got) != 60*2048+1 {
		t.Errorf("a steady body: %d bytes, %v, %d cuts", len(got), err, cuts)
	}
}

func TestStreamIdleCountsEventsNotBytes(t *testing.T) {
	lim := Limits{Idle: 3 * time.Second}
	ok := repeat(10, step{2 * time.Second, "data: {\"type\":\"token\"}\n\n"})
	// A keep-alive comment is an event: a live server thinking.
	ok = append(ok, step{2 * time.Second, ": keep-alive\n\n"}, step{2 * time.Second, "data: [DONE]\n\n"})
	if _, err, _, _ := read(t, lim, ok...); err != nil {
		t.Fatalf("events 2 s apart under an idle limit of 3 s: %v", err)
	}
	// Bytes that never make an event: a byte a second is no progress.
	drip := append([]step{{0, "data: {\"type\":\"token\"}\n\n"}}, repeat(20, step{time.Second, "d"})...)
	got, err, took, _ := read(t, lim, drip...)
	e := wantReason(t, err, Idle)
	if took != 3*time.Second || !strings.HasPrefix(string(got), "data:") {
		t.Errorf("cut after %v, want 3 s after the last event", took)
	}
	if !strings.HasPrefix(e.Error(), "the stream sent no event for 3s") || Classify(err) != Deadline {
		t.Errorf("reason: %q", e)
	}
}

func TestEventBoundSeesEveryLineEnd(t *testing.T) {
	lim := Limits{Event: 100}
	// Events of 80 bytes, ended by LF LF, CRLF CRLF and CR CR.
	ev := "data: " + strings.Repeat("e", 72)
	for _, end := range []string{"\n\n", "\r\n\r\n", "\r\r"} {
		if _, err, _, _ := read(t, lim, repeat(5, step{0, ev + end})...); err != nil {
			t.Errorf("80-byte events ended by %q: %v", end, err)
		}
	}
	// Two lines of one event count together: 2 × 80 bytes is over 100.
	got, err, _, cuts := read(t, lim, step{0, ev + "\n" + ev + "\n\n"})
	wantReason(t, err, OverEvent)
	if len(got) != 100 || cuts != 1 {
		t.Errorf("kept %d bytes, %d cuts; want the 100 of the bound", len(got), cuts)
	}
	// One line without end.
	steps := append([]step{{0, "data: "}}, repeat(100, step{0, "xxxxxxxxxx"})...)
	_, err, _, _ = read(t, lim, steps...)
	if e := wantReason(t, err, OverEvent); e.Error() != "one event of the stream is over 100 bytes: reading stopped there" {
		t.Errorf("reason: %q", e)
	}
}

func TestStreamDurationAndSize(t *testing.T) {
	// Never [DONE]: an event every 100 ms forever.
	_, err, took, _ := read(t, Limits{Idle: time.Second, Duration: 2 * time.Second}, repeat(1000, step{100 * time.Millisecond, "data: {}\n\n"})...)
	e := wantReason(t, err, TooLong)
	if took != 2*time.Second || e.Error() != "the stream was still going after 2s (190 bytes read), cut" {
		t.Errorf("after %v: %q", took, e)
	}
	// A flood of events is cut at the stream's bound.
	got, err, _, _ := read(t, Limits{Bytes: 1000, Event: 100}, repeat(1000, step{0, "data: {}\n\n"})...)
	wantReason(t, err, OverStream)
	if len(got) != 1000 {
		t.Errorf("kept %d bytes, want 1000", len(got))
	}
}

func TestCloseStopsTheTimer(t *testing.T) {
	c := newFakeClock()
	cuts := 0
	b := newReader(strings.NewReader("x"), Limits{Idle: time.Second, Duration: time.Second}, func() { cuts++ }, c)
	b.Close()
	c.Advance(time.Minute)
	if cuts != 0 || b.Err() != nil {
		t.Errorf("a closed reader cut %d times: %v", cuts, b.Err())
	}
}

// TestACutWhileBlockedIsTheBound: a read blocked on a server that sends
// nothing is unblocked by cut, and reports the bound, not the transport's
// "closed pipe".
func TestACutWhileBlockedIsTheBound(t *testing.T) {
	c := newFakeClock()
	pr, pw := io.Pipe()
	b := newReader(pr, Limits{Idle: time.Second}, func() { pw.CloseWithError(errCut) }, c)
	defer b.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(b)
		done <- err
	}()
	if _, err := pw.Write([]byte("data: 1\n\n")); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Second)
	err := <-done
	wantReason(t, err, Idle)
	if b.N() != 9 {
		t.Errorf("N() = %d, want the 9 bytes of the event", b.N())
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1: "1 byte", 37: "37 bytes", 1024: "1 KiB", 1536: "1.5 KiB", 8 << 20: "8 MiB", 3 << 19: "1.5 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestReadAllOfAnHonestBody(t *testing.T) {
	body := bytes.Repeat([]byte("a"), 1000)
	got, err := ReadAll(bytes.NewReader(body), Body, nil)
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("%d bytes, %v", len(got), err)
	}
}
