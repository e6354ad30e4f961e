package logbuf

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is an io.Writer that counts its write calls.
type recorder struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	err    error
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	if r.err != nil {
		return 0, r.err
	}
	return r.buf.Write(p)
}

func (r *recorder) state() (string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String(), r.writes
}

// manual replaces the timer: the test decides when the timed flush runs.
func manual(w *Writer) *[]func() {
	var pending []func()
	w.afterFunc = func(_ time.Duration, f func()) *time.Timer {
		pending = append(pending, f)
		return nil
	}
	return &pending
}

func TestLinesWaitForTheTimedFlushThenGoOutInOneWrite(t *testing.T) {
	out := &recorder{}
	w := New(out, time.Second, 1024)
	pending := manual(w)
	for i := range 10 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	if got, n := out.state(); n != 0 || got != "" {
		t.Fatalf("before the flush: %d writes, %q; want nothing written", n, got)
	}
	if len(*pending) != 1 {
		t.Fatalf("%d flushes scheduled for one burst, want 1", len(*pending))
	}
	(*pending)[0]()
	got, n := out.state()
	if n != 1 {
		t.Errorf("%d writes, want the burst in one", n)
	}
	if !strings.HasPrefix(got, "line 0\n") || !strings.HasSuffix(got, "line 9\n") || strings.Count(got, "\n") != 10 {
		t.Errorf("written %q, want the 10 lines in order", got)
	}
	fmt.Fprintln(w, "after")
	if len(*pending) != 2 {
		t.Errorf("a write after a flush scheduled %d flushes in all, want a new one (2)", len(*pending))
	}
}

func TestAFullBufferIsWrittenAtOnce(t *testing.T) {
	out := &recorder{}
	w := New(out, time.Hour, 16)
	manual(w)
	_, _ = w.Write([]byte("0123456789"))
	_, _ = w.Write([]byte("abcdefghij")) // would overflow 16: the first goes out
	if got, _ := out.state(); got != "0123456789" {
		t.Fatalf("after overflowing: written %q, want the first write", got)
	}
	_, _ = w.Write(bytes.Repeat([]byte("x"), 40)) // bigger than the buffer: straight through
	if got, _ := out.state(); got != "0123456789abcdefghij"+strings.Repeat("x", 40) {
		t.Fatalf("written %q, want both earlier writes then the big one, in order", got)
	}
}

func TestCloseFlushesAndLaterWritesGoStraightThrough(t *testing.T) {
	out := &recorder{}
	w := New(out, time.Hour, 1024)
	manual(w)
	_, _ = w.Write([]byte("kept\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("late\n"))
	if got, _ := out.state(); got != "kept\nlate\n" {
		t.Fatalf("written %q, want both lines", got)
	}
}

func TestAnErrorOfTheTimedFlushIsReturnedByTheNextFlush(t *testing.T) {
	broken := errors.New("disk full")
	out := &recorder{err: broken}
	w := New(out, time.Hour, 1024)
	pending := manual(w)
	_, _ = w.Write([]byte("lost\n"))
	(*pending)[0]()
	if err := w.Flush(); !errors.Is(err, broken) {
		t.Fatalf("Flush got %v, want the timed flush's error", err)
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("a second Flush got %v, want the error reported once", err)
	}
}

func TestTheRealTimerFlushes(t *testing.T) {
	out := &recorder{}
	w := New(out, time.Millisecond, 1024)
	_, _ = w.Write([]byte("soon\n"))
	deadline := time.Now().Add(5 * time.Second)
	for {
		if got, _ := out.state(); got == "soon\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the line was not written by the timer within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	out := &recorder{}
	w := New(out, time.Millisecond, 256)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				fmt.Fprintf(w, "g%d-%d\n", g, i)
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := out.state(); strings.Count(got, "\n") != 8*200 {
		t.Fatalf("%d lines written, want %d", strings.Count(got, "\n"), 8*200)
	}
}
