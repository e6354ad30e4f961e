package mockserver

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"testing"
	"time"
)

// rawStreamRequest is a paced stream's request as a browser's EventSource
// sends it over HTTP/1.1, with headers (each ending in CRLF) added, and
// the address to send it to.
func rawStreamRequest(ts *testServer, headers string) (addr, req string) {
	var model int64
	for _, m := range ts.srv.store.Account(ts.srv.keys[0].account).Models() {
		if m.Status != nil && *m.Status == "ready" {
			model = m.ID
		}
	}
	body := fmt.Sprintf(`{"query":"What is the standard warranty period and what does it cover?","model_id":%d,"response_length_preference":"detailed"}`, model)
	addr = strings.TrimPrefix(ts.url, "http://")
	return addr, fmt.Sprintf("POST /api/v1/user/inference HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s",
		addr, testKey1, headers, len(body), body)
}

// sendRaw dials addr and writes req on a raw connection (no client
// goroutine), every read on it bounded; the test closes it.
func sendRaw(t *testing.T, addr, req string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // bounds every read
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	return c
}

// takenStream opens a paced stream on a raw connection (HTTP/1.1, as a
// browser's EventSource sends it) and returns the response, its head read.
func takenStream(t *testing.T, ts *testServer, headers string) (net.Conn, *bufio.Reader, *http.Response) {
	t.Helper()
	addr, req := rawStreamRequest(ts, headers)
	c := sendRaw(t, addr, req)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("got %d %q, want a 200 event stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return c, br, resp
}

// openTaken is how many streams hold their connection; it waits (bounded)
// for it to reach want.
func openTaken(t *testing.T, s *Server, want int) {
	t.Helper()
	n := -1
	for range 1000 {
		s.taken.mu.Lock()
		n = len(s.taken.conns)
		s.taken.mu.Unlock()
		if n == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("streams holding their connection: %d, want %d", n, want)
}

// TestTakenOverStreamIsChunkedAsNetHTTPWould: a paced stream's connection
// is taken over, and what the client reads is still a chunked body that
// ends with the last chunk (and every event of the stream), then the
// connection closes as its Connection: close said.
func TestTakenOverStreamIsChunkedAsNetHTTPWould(t *testing.T) {
	ts := newTestServer(t, withConfig(func(c *Config) { c.TokenInterval = time.Millisecond }))
	_, br, resp := takenStream(t, ts, "")
	if te := resp.TransferEncoding; len(te) != 1 || te[0] != "chunked" || !resp.Close {
		t.Errorf("Transfer-Encoding %q, close %v: want chunked, and Connection: close", te, resp.Close)
	}
	body, err := io.ReadAll(resp.Body) // net/http's chunked reader: fails without the last chunk
	if err != nil {
		t.Fatalf("reading the chunked body: %v", err)
	}
	events := strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n")
	if events[0] != `data: {"type":"status","content":"retrieving"}` || events[len(events)-1] != "data: [DONE]" ||
		!strings.Contains(events[len(events)-2], `"type":"done"`) || !strings.Contains(string(body), `"type":"token"`) {
		t.Errorf("events %q: want status, tokens, done, [DONE]", events)
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("after the last chunk: %q, %v; want the connection closed", rest, err)
	}
	openTaken(t, ts.srv, 0)
	// The journal has every event the client got.
	var streams []*journalEntry
	for range 1000 { // it is added once the handler returns
		streams = ts.srv.journal.list(ts.srv.keys[0].account, func(e *journalEntry) bool { return e.Response.Stream != nil })
		if len(streams) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(streams) != 1 || streams[0].Response.Stream.ChunkCount != len(events) || streams[0].Status != 200 {
		t.Fatalf("the journal has %d streams, want 1 of %d chunks", len(streams), len(events))
	}
}

// TestTakenOverStreamEndsWhenTheClientLeaves: with the first token an hour
// away, or a stall, the stream notices the client leaving and lets go of
// the connection.
func TestTakenOverStreamEndsWhenTheClientLeaves(t *testing.T) {
	for _, fault := range []string{"", "stall"} {
		t.Run("fault="+fault, func(t *testing.T) {
			interval, headers := time.Hour, ""
			if fault != "" {
				interval, headers = time.Millisecond, "X-Mock-Stream-Fault: "+fault+"\r\n"
			}
			ts := newTestServer(t, withConfig(func(c *Config) { c.TokenInterval = interval }))
			c, br, _ := takenStream(t, ts, headers)
			want := `"type":"status"`
			if fault != "" {
				want = `"type":"token"`
			}
			readEvent(t, httputil.NewChunkedReader(br), want)
			openTaken(t, ts.srv, 1)
			c.Close()
			openTaken(t, ts.srv, 0)
		})
	}
}

// TestTakenOverStreamShutdown: Shutdown ends a waiting stream, and a
// stalled one, with an error chunk, [DONE] and the last chunk.
func TestTakenOverStreamShutdown(t *testing.T) {
	for _, fault := range []string{"", "stall"} {
		t.Run("fault="+fault, func(t *testing.T) {
			interval, headers, first := time.Hour, "", `"type":"status"`
			if fault != "" {
				interval, headers, first = time.Millisecond, "X-Mock-Stream-Fault: "+fault+"\r\n", `"type":"token"`
			}
			ts := newTestServer(t, withConfig(func(c *Config) { c.TokenInterval = interval }))
			_, _, resp := takenStream(t, ts, headers)
			readEvent(t, resp.Body, first)
			openTaken(t, ts.srv, 1)
			ts.srv.Shutdown()
			rest, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("reading after Shutdown: %v (want the last chunk)", err)
			}
			if !strings.HasSuffix(string(rest), "data: [DONE]\n\n") || !strings.Contains(string(rest), "server is shutting down") {
				t.Errorf("after Shutdown: %q, want an error chunk then [DONE]", rest)
			}
			if err := ts.srv.Close(); err != nil { // waits for the stream
				t.Fatal(err)
			}
			openTaken(t, ts.srv, 0)
		})
	}
}

// TestTakenOverStreamCut: a cut drops the connection with no last chunk.
func TestTakenOverStreamCut(t *testing.T) {
	ts := newTestServer(t, withConfig(func(c *Config) { c.TokenInterval = time.Millisecond }))
	_, _, resp := takenStream(t, ts, "X-Mock-Stream-Fault: cut\r\n")
	body, err := io.ReadAll(resp.Body)
	if err == nil || strings.Contains(string(body), "[DONE]") || !strings.Contains(string(body), `"type":"token"`) {
		t.Errorf("a cut stream read %q, %v; want some tokens, then the connection dropped", body, err)
	}
	openTaken(t, ts.srv, 0)
}

// readEvent reads (unchunked) body bytes until one holds want.
func readEvent(t *testing.T, body io.Reader, want string) {
	t.Helper()
	r := bufio.NewReader(body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before %s: %v", want, err)
		}
		if strings.Contains(line, want) {
			return
		}
	}
}
