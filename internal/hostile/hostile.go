// Package hostile is a server that misbehaves at the HTTP level: an answer
// that never ends, drips, is garbage, resets the connection, nests JSON
// without end, never finishes its headers, or an event stream that never
// ends or goes silent. These are what a candidate under development does to
// a client by accident; a client must end each of them within its bounds.
//
// They are the building blocks of the hostile mutants (package mutation,
// `mockserver --break hostile-...`) and of the bounded-reading tests
// (package bound). Every loop here ends: when the client
// leaves (the request's context), when a write fails, or at a byte or
// time cap the caller gives, so a test that forgets to read still ends.
package hostile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Out is where a misbehaviour writes: an answer's body, a hijacked
// connection, or a stream rewriter's output (mutation.StreamOut).
type Out interface {
	Write(p []byte) (int, error)
	Flush() error
}

// Flushing is w as an Out: every Flush reaches the client.
func Flushing(w http.ResponseWriter) Out { return flushing{w} }

type flushing struct{ w http.ResponseWriter }

func (f flushing) Write(p []byte) (int, error) { return f.w.Write(p) }
func (f flushing) Flush() error                { return http.NewResponseController(f.w).Flush() }

// Repeat writes chunk to out again and again, flushing each time, with
// every between writes (0: as fast as the client reads), until ctx ends, a
// write fails (the client left) or max bytes are written. It returns the
// bytes written.
func Repeat(ctx context.Context, out Out, chunk []byte, every time.Duration, max int64) int64 {
	var n int64
	for n < max && ctx.Err() == nil {
		k, err := out.Write(chunk)
		n += int64(k)
		if err != nil || out.Flush() != nil {
			return n
		}
		if every > 0 && !Wait(ctx, every) {
			return n
		}
	}
	return n
}

// Wait waits d or until ctx ends; it reports whether d passed.
func Wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Filler is a 32 KiB chunk of one byte, for floods.
func Filler(b byte) []byte {
	p := make([]byte, 32<<10)
	for i := range p {
		p[i] = b
	}
	return p
}

// Endless answers 200 with contentType, writes prefix, then filler bytes
// with no end: the model list that sends whitespace forever after `[`. It
// stops when the client leaves or after max bytes.
func Endless(w http.ResponseWriter, r *http.Request, contentType string, prefix []byte, filler byte, max int64) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	out := Flushing(w)
	if _, err := out.Write(prefix); err != nil {
		return
	}
	Repeat(r.Context(), out, Filler(filler), 0, max)
}

// Drip sends an answer one byte every interval: the status and headers at
// once (with the body's Content-Length, as a real answer has), then the
// body dripping. It stops when the client leaves.
func Drip(w http.ResponseWriter, r *http.Request, status int, header http.Header, body []byte, every time.Duration) {
	for k, vs := range header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	out := Flushing(w)
	if out.Flush() != nil {
		return
	}
	for i := range body {
		if i > 0 && !Wait(r.Context(), every) {
			return
		}
		if _, err := out.Write(body[i : i+1]); err != nil || out.Flush() != nil {
			return
		}
	}
}

// Garbage answers 200, labelled application/json, with n bytes of noise
// (the same bytes every time: a failure replays).
func Garbage(w http.ResponseWriter, n int) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(http.StatusOK)
	p := make([]byte, n)
	x := uint32(2463534242)
	for i := range p {
		x ^= x << 13 // xorshift32: noise without a dependency on math/rand's seeding
		x ^= x >> 17
		x ^= x << 5
		p[i] = byte(x)
	}
	_, _ = w.Write(p) // a client gone: nothing to do
}

// Nested answers 200 with a success envelope whose data is an array nested
// depth deep: `{"status":"success","data":[[[...]]]}`.
func Nested(w http.ResponseWriter, depth int) {
	body := make([]byte, 0, len(`{"status":"success","data":}`)+2*depth)
	body = append(body, `{"status":"success","data":`...)
	for range depth {
		body = append(body, '[')
	}
	for range depth {
		body = append(body, ']')
	}
	body = append(body, '}')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// ErrNoHijack is returned when the server cannot give up the connection
// (HTTP/2): the misbehaviours below the HTTP layer need HTTP/1.
var ErrNoHijack = errors.New("hostile: the connection cannot be hijacked")

// Reset takes the connection and closes it with a TCP reset (RST), no
// answer at all: what a crashing server or a middlebox does.
func Reset(w http.ResponseWriter) error {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return errors.Join(ErrNoHijack, err)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0) // close sends RST, not FIN
	}
	return conn.Close()
}

// EndlessHeaders takes the connection and sends a status line, then header
// lines with no end and never the blank line that ends them, until the
// client leaves or max bytes.
func EndlessHeaders(w http.ResponseWriter, r *http.Request, max int64) error {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return errors.Join(ErrNoHijack, err)
	}
	defer conn.Close()
	out := &conn2out{w: buf.Writer}
	if _, err := fmt.Fprint(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"); err != nil {
		return nil
	}
	line := append([]byte("X-Padding: "), Filler('a')[:1000]...)
	line = append(line, "\r\n"...)
	Repeat(r.Context(), out, line, 0, max)
	return nil
}

// conn2out is a hijacked connection's buffered writer as an Out.
type conn2out struct{ w *bufio.Writer }

func (c *conn2out) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *conn2out) Flush() error                { return c.w.Flush() }

// StartStream answers 200 as an event stream and flushes the headers.
func StartStream(w http.ResponseWriter) Out {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	out := Flushing(w)
	_ = out.Flush()
	return out
}

// TokenEvent is one inference chunk as the mock writes it (D-03).
var TokenEvent = []byte("data: {\"type\":\"token\",\"content\":\"and \"}\n\n")

// Hold keeps the connection open and silent until the client leaves or
// at most d: the stream that goes quiet after its first chunk.
func Hold(ctx context.Context, d time.Duration) { Wait(ctx, d) }
