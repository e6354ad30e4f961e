package mockserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A paced stream spends nearly all its life waiting for its next token.
// Served by net/http to the end, each waiting stream holds net/http's
// background reader (a goroutine that only watches for the client leaving)
// and the response's buffered writer besides its own goroutine. So once its
// headers are sent, a paced stream over HTTP/1.1 takes its connection over
// (http.Hijacker): it frames its events itself, as net/http's chunked
// encoding would, and watches for the client leaving in the same wait that
// paces it (a read on the connection with the next token's time as its
// deadline). The answer says "Connection: close", and the connection closes
// after the stream's last chunk, as net/http closes one that says so.
// Where the writer cannot be taken over (HTTP/2, HTTP/1.0, a recorder in a
// test, a writer that rewrites the answer) the stream stays on net/http's
// path.

// streamConn is the bottom of a taken-over stream's writers: each write is
// one chunk, sent at once.
type streamConn struct {
	conn   net.Conn
	header http.Header // as sent
	cut    bool        // dropped on purpose: no last chunk
	one    [1]byte     // what a wait reads into (a client sends nothing while it listens)
}

func (sc *streamConn) Header() http.Header { return sc.header }

// WriteHeader does nothing: the status went out before the takeover.
func (sc *streamConn) WriteHeader(int) {}

// Write sends p as one chunk (size in hex, CRLF, the bytes, CRLF: net/http's
// framing), in one write to the connection.
func (sc *streamConn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil // an empty chunk would end the body
	}
	bp := frameBufs.Get().(*[]byte)
	b := strconv.AppendInt((*bp)[:0], int64(len(p)), 16)
	b = append(b, '\r', '\n')
	b = append(b, p...)
	b = append(b, '\r', '\n')
	_, err := sc.conn.Write(b)
	if cap(b) <= eventBufMax {
		*bp = b
		frameBufs.Put(bp)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// FlushError has nothing to send: every write went out whole.
func (sc *streamConn) FlushError() error { return nil }

// Flush is FlushError for callers that want an http.Flusher.
func (sc *streamConn) Flush() {}

var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// lastChunk ends a chunked body (no trailers).
var lastChunk = []byte("0\r\n\r\n")

// openStreams are the taken-over streams: shutdown wakes their waits, and
// Close waits for them (http.Server.Shutdown no longer sees them).
type openStreams struct {
	mu    sync.Mutex
	conns map[*streamConn]struct{}
	down  chan struct{} // the server's shutdown channel
	wg    sync.WaitGroup
}

// takeOver hijacks the connection under w once the answer's status and
// headers are written; nil (and the stream stays on net/http's path) when
// it cannot. w must be the one takeable reports on.
func (o *openStreams) takeOver(rec *statusRecorder) *streamConn {
	hj := rec.ResponseWriter.(http.Hijacker)
	header := rec.Header()
	conn, brw, err := hj.Hijack() // flushes the status and headers first
	if err != nil {
		return nil
	}
	// net/http's connection keeps pointers to the reader and writer it
	// handed over (4 KB buffers each) until the handler returns, and never
	// uses them again: they are ours, and emptied they hold 16 bytes each.
	// Bytes a client sent ahead are dropped with them: the connection
	// closes after this answer.
	*brw.Reader = *bufio.NewReaderSize(strings.NewReader(""), 16)
	*brw.Writer = *bufio.NewWriterSize(io.Discard, 16)
	sc := &streamConn{conn: conn, header: header}
	rec.ResponseWriter = sc
	o.mu.Lock()
	o.conns[sc] = struct{}{}
	o.wg.Add(1)
	o.mu.Unlock()
	return sc
}

// takeable is the recorder whose writer a stream can take over: net/http's
// own for an HTTP/1.1 request (not one that wraps another: it may rewrite
// what passes), with real timers (tests pace streams with their own).
func (s *Server) takeable(w http.ResponseWriter, r *http.Request) *statusRecorder {
	if _, real := s.timers.(realTimers); !real || r.ProtoMajor != 1 || r.ProtoMinor < 1 {
		return nil
	}
	for w != nil {
		if rec, ok := w.(*statusRecorder); ok {
			_, hj := rec.ResponseWriter.(http.Hijacker)
			_, wraps := rec.ResponseWriter.(interface{ Unwrap() http.ResponseWriter })
			if hj && !wraps {
				return rec
			}
			return nil
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// end sends the last chunk (unless the stream was cut), closes the
// connection and forgets the stream.
func (o *openStreams) end(sc *streamConn) {
	if !sc.cut {
		_, _ = sc.conn.Write(lastChunk)
	}
	_ = sc.conn.Close()
	o.mu.Lock()
	delete(o.conns, sc)
	o.mu.Unlock()
	o.wg.Done()
}

// cut drops the connection without the last chunk (X-Mock-Stream-Fault: cut).
func (o *openStreams) cut(sc *streamConn) {
	sc.cut = true
	_ = sc.conn.Close()
}

// shutdown wakes every waiting stream (called after the shutdown channel
// is closed: a wait that set its deadline before that sees it, one that
// sets it after sees the closed channel).
func (o *openStreams) shutdown() {
	past, bound := time.Unix(1, 0), time.Now().Add(shutdownWriteBound)
	o.mu.Lock()
	defer o.mu.Unlock()
	for sc := range o.conns {
		_ = sc.conn.SetReadDeadline(past)
		_ = sc.conn.SetWriteDeadline(bound) // a client that stopped reading does not hold the shutdown
	}
}

// shutdownWriteBound is how long a stream's last writes may take once the
// server shuts down (the http.Server's graceful shutdown waits 5 seconds).
const shutdownWriteBound = 5 * time.Second

// waitEnd is how a wait ended.
type waitEnd int

const (
	waitNext     waitEnd = iota // time for the next token
	waitGone                    // the client left
	waitShutdown                // the server is shutting down
)

// wait pauses d (forever when d is 0) on the stream's connection, ending
// early when the client leaves (the read ends: EOF or an error) or the
// server shuts down. Bytes a client sends meanwhile are dropped: the
// connection closes after this answer.
func (o *openStreams) wait(sc *streamConn, d time.Duration) waitEnd {
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	for {
		_ = sc.conn.SetReadDeadline(deadline)
		select {
		case <-o.down:
			return waitShutdown
		default:
		}
		_, err := sc.conn.Read(sc.one[:])
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded):
			select {
			case <-o.down:
				return waitShutdown
			default:
			}
			if d > 0 && !time.Now().Before(deadline) {
				return waitNext
			}
		default:
			return waitGone
		}
	}
}
