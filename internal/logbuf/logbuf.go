// Package logbuf is a buffered log writer for a busy server: lines are
// gathered in memory and written in one call every Interval (or when the
// buffer fills), instead of one write system call per request line.
//
// The mock logs one line per request; under load those writes were a
// measurable share of its CPU. Nothing is dropped: a full buffer is written
// at once by the writer that filled it, which also bounds the memory a
// stalled destination can cost.
package logbuf

import (
	"io"
	"sync"
	"time"
)

// Defaults for New.
const (
	// Interval is how long a line may wait in memory before it is written.
	Interval = 50 * time.Millisecond
	// Size is the buffer that, once full, is written at once.
	Size = 64 << 10
)

// Writer buffers writes to an underlying io.Writer. It is safe for
// concurrent use. Call Close (or Flush) before the process ends.
type Writer struct {
	mu      sync.Mutex
	out     io.Writer
	buf     []byte
	every   time.Duration
	armed   bool // a flush is scheduled
	closed  bool
	lastErr error
	// afterFunc schedules the timed flush (time.AfterFunc; tests run it
	// themselves instead of waiting).
	afterFunc func(time.Duration, func()) *time.Timer
}

// New returns a Writer that writes to out at most every interval (0:
// Interval) or when size bytes (0: Size) are waiting.
func New(out io.Writer, interval time.Duration, size int) *Writer {
	if interval <= 0 {
		interval = Interval
	}
	if size <= 0 {
		size = Size
	}
	return &Writer{out: out, buf: make([]byte, 0, size), every: interval, afterFunc: time.AfterFunc}
}

// Write keeps p for the next flush. A write after Close goes straight
// through, so a late line is never lost.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.out.Write(p)
	}
	if len(w.buf)+len(p) > cap(w.buf) {
		if err := w.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > cap(w.buf) { // larger than the whole buffer: no copy
			return w.out.Write(p)
		}
	}
	w.buf = append(w.buf, p...)
	if !w.armed {
		w.armed = true
		w.afterFunc(w.every, w.timed)
	}
	return len(p), nil
}

// timed is the scheduled flush. A write error has no caller to return to
// here: it is kept and returned by the next Flush or Close.
func (w *Writer) timed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = false
	if err := w.flushLocked(); err != nil {
		w.lastErr = err
	}
}

// Flush writes what is waiting.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.flushLocked()
	if err == nil {
		err, w.lastErr = w.lastErr, nil
	}
	return err
}

// Close flushes, and makes every later write go straight through.
func (w *Writer) Close() error {
	err := w.Flush()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	return err
}

func (w *Writer) flushLocked() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.out.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}
