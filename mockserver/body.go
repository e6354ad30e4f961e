package mockserver

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// Draining bounds: how much of an unwanted body the server reads, and for how
// long, so that a client which writes its whole body before reading (Python's
// http.client, curl without Expect) reads the error instead of a reset
// connection. Past either bound the connection is closed.
const (
	MaxDrainBytes = 1 << 30
	MaxDrainTime  = 60 * time.Second
)

// body wraps a request body: it counts what was read, notices the end, and
// once a limit is set refuses to read past it (like http.MaxBytesReader, but
// without telling net/http, which would close the connection with the
// client's body still unread).
type body struct {
	rc    io.ReadCloser
	n     int64
	limit int64 // 0: none
	read  bool  // a Read was called, so a 100 Continue went out
	eof   bool
	over  bool
}

func (b *body) Read(p []byte) (int, error) {
	b.read = true
	if b.over {
		return 0, &http.MaxBytesError{Limit: b.limit}
	}
	if b.limit > 0 {
		if left := b.limit + 1 - b.n; int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.limit > 0 && b.n > b.limit {
		b.over = true
		return n - int(b.n-b.limit), &http.MaxBytesError{Limit: b.limit}
	}
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *body) Close() error { return b.rc.Close() }

// setLimit bounds the body; a declared Content-Length over the limit is
// refused at once, before anything is read (so, with Expect: 100-continue,
// before the client sends the body).
func (b *body) setLimit(r *http.Request, limit int64) error {
	if b == nil {
		return nil // no body to bound
	}
	b.limit = limit
	if r.ContentLength > limit {
		b.over = true
		return &http.MaxBytesError{Limit: limit}
	}
	return nil
}

// wrapBody puts a body wrapper on r; nil when r has no body.
func wrapBody(r *http.Request) *body {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b := &body{rc: r.Body}
	r.Body = b
	return b
}

// finish prepares the connection for an error answer. A body the server did
// not read is drained (bounded by MaxDrainBytes and MaxDrainTime) so that
// the answer reaches a client still writing; a client that asked for
// 100-continue and was not told to continue never sends its body, so
// nothing is read. Whenever the body is not read to its end, or was over a
// limit, the connection closes after the answer.
func (b *body) finish(w http.ResponseWriter, r *http.Request) {
	if b == nil || b.eof {
		return
	}
	if !b.read && strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		w.Header().Set("Connection", "close")
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(MaxDrainTime))
	n, err := io.Copy(io.Discard, io.LimitReader(b.rc, MaxDrainBytes))
	_ = rc.SetReadDeadline(time.Time{})
	if b.over || err != nil || n == MaxDrainBytes {
		w.Header().Set("Connection", "close")
	}
}
