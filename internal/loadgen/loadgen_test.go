package loadgen

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Send delivers exactly n requests, over kept-alive connections, and reads
// answers with a length, chunked answers and answers that close the
// connection.
func TestSendCountsEveryAnswer(t *testing.T) {
	var served, bodies atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		if b, _ := io.ReadAll(r.Body); string(b) == `{"a":1}` {
			bodies.Add(1)
		}
		switch r.URL.Path {
		case "/chunked":
			w.(http.Flusher).Flush() // no length: chunked
			_, _ = w.Write([]byte(strings.Repeat("x", 5000)))
		case "/close":
			w.Header().Set("Connection", "close")
			_, _ = w.Write([]byte("bye"))
		default:
			_, _ = w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, path := range []string{"/", "/chunked", "/close"} {
		served.Store(0)
		bodies.Store(0)
		req := NewRequest(path, "POST", addr, path, map[string]string{"Content-Type": "application/json"}, []byte(`{"a":1}`))
		res := Send(addr, req, 4, 103, 30*time.Second)
		if res.OK != 103 || res.Failed != 0 || served.Load() != 103 || bodies.Load() != 103 {
			t.Errorf("%s: %d ok, %d failed (%v), %d served, %d bodies read; want 103 of each", path, res.OK, res.Failed, res.FirstErr, served.Load(), bodies.Load())
		}
	}
}

// A status other than 200 counts as a failure, with the first one kept.
func TestHammerCountsOtherStatusesAsFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	res := Hammer(addr, NewRequest("teapot", "GET", addr, "/", nil, nil), 2, 100*time.Millisecond)
	if res.OK != 0 || res.Failed == 0 || res.FirstErr == nil || !strings.Contains(res.FirstErr.Error(), "418") {
		t.Fatalf("%d ok, %d failed, first %v; want only failures naming 418", res.OK, res.Failed, res.FirstErr)
	}
}
