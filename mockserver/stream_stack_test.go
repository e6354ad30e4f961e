//go:build !race

// The race detector enlarges frames and the runtime's stack guard, so the
// threshold this file guards only holds in a normal build (go test without
// -race; make bench).

package mockserver

import (
	"bufio"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestOpenStreamStacksShrink guards the parked depth of an open stream. The
// stream's goroutine (net/http's, under conn.serve) grows its stack to 16 KB
// or more while the request is validated and answered; the GC halves a
// parked stack only while less than a quarter of it is in use (guard
// included), and the paced wait parks just under that line for 8 KB. A few
// hundred bytes more in any frame on the path (conn.serve, ServeHTTP,
// journaled, api, runInference, stream, the wait) keep every open stream at
// 16 KB: 8 KB more each, a fifth of the memory budget of an open stream.
// A paced stream takes its connection over (streamconn.go), so net/http's
// background reader (2 KB more) is gone too.
// openParkedStreams opens n paced streams (the first token an hour away)
// on raw connections, each read up to its status event, after reading
// before's memory statistics.
func openParkedStreams(t *testing.T, n int, before *runtime.MemStats) {
	t.Helper()
	ts := newTestServer(t, withConfig(func(c *Config) { c.TokenInterval = time.Hour }))
	addr, req := rawStreamRequest(ts, "")
	runtime.GC()
	runtime.ReadMemStats(before)
	for range n {
		// A raw connection: no client goroutine, so the stacks measured are
		// the server's.
		c := sendRaw(t, addr, req)
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the stream: %v", err)
			}
			if strings.Contains(line, `"type":"status"`) {
				break
			}
		}
	}
}

func TestOpenStreamStacksShrink(t *testing.T) {
	const streams = 100
	var before runtime.MemStats
	openParkedStreams(t, streams, &before)
	// Each GC halves a parked stack at most once: a few rounds bring a
	// 32 KB stack down to its floor, once every stream is parked.
	var per int64
	for range 20 {
		var now runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&now)
		per = (int64(now.StackInuse) - int64(before.StackInuse)) / streams
		if per <= 8<<10 {
			return
		}
	}
	t.Errorf("an open stream holds %d bytes of stack, want at most the handler's 8 KB (9-10 KB: net/http's background reader is still there, the connection was not taken over; 16 KB: the parked depth grew)", per)
}

// TestOpenStreamReleasesNetHTTPBuffers: a paced stream that took its
// connection over holds neither net/http's 4 KB reader and writer of the
// connection nor the response's 2 KB writer: about 6 KB of heap is left
// per parked stream (the request, the journal's record, the answer), 15 KB
// or more when the buffers stay.
func TestOpenStreamReleasesNetHTTPBuffers(t *testing.T) {
	const streams = 100
	var before runtime.MemStats
	openParkedStreams(t, streams, &before)
	var per int64
	for range 5 { // what the pools held goes within two collections
		var now runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&now)
		per = (int64(now.HeapAlloc) - int64(before.HeapAlloc)) / streams
		if per < 10<<10 {
			return
		}
	}
	t.Errorf("an open stream holds %d bytes of heap, want under 10 KB (net/http's buffers kept?)", per)
}
