package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve starts h on 127.0.0.1 and returns its URL and a channel closed when
// a handler returns: every misbehaviour must end once the client leaves.
func serve(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) (string, <-chan struct{}) {
	t.Helper()
	done := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { done <- struct{}{} }()
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, done
}

// ended waits for a handler to return, at most 10 s (a handler that never
// returns is the failure).
func ended(t *testing.T, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not end after the client left")
	}
}

func TestEndlessNeverEndsUntilTheClientLeaves(t *testing.T) {
	url, done := serve(t, func(w http.ResponseWriter, r *http.Request) {
		Endless(w, r, "application/json", []byte(`{"status":"success","data":[`), ' ', 1<<40)
	})
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 28)
	if _, err := io.ReadFull(resp.Body, head); err != nil || string(head) != `{"status":"success","data":[` {
		t.Fatalf("prefix: %q, %v", head, err)
	}
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 8<<20))
	if err != nil || n != 8<<20 {
		t.Fatalf("read %d bytes of filler (%v), want 8 MiB and more to come", n, err)
	}
	resp.Body.Close()
	ended(t, done)
}

func TestEndlessStopsAtItsCap(t *testing.T) {
	url, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		Endless(w, r, "application/json", []byte("["), ' ', 100<<10)
	})
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	// The cap counts whole filler chunks: 32 KiB each, at least max.
	if len(b) != 1+4*32<<10 {
		t.Errorf("read %d bytes, want the prefix and four 32 KiB chunks", len(b))
	}
}

func TestDripSendsAByteAnInterval(t *testing.T) {
	body := []byte(`{"status":"success","data":{"id":4}}`)
	url, done := serve(t, func(w http.ResponseWriter, r *http.Request) {
		Drip(w, r, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, body, 30*time.Millisecond)
	})
	start := time.Now()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	headers := time.Since(start)
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("body %q, %v", got, err)
	}
	// 36 bytes, 35 pauses of 30 ms: the body takes about a second while
	// the headers came at once.
	if took := time.Since(start); took < 35*30*time.Millisecond || headers > 500*time.Millisecond {
		t.Errorf("headers after %v, body after %v: not a drip", headers, took)
	}
	ended(t, done)

	// A client that leaves mid-drip ends it.
	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ended(t, done)
}

func TestGarbageIsNotJSONAndTheSameEveryTime(t *testing.T) {
	url, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { Garbage(w, 4096) })
	var bodies [][]byte
	for range 2 {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Header.Get("Content-Type") != "application/json" || len(b) != 4096 || json.Valid(b) {
			t.Fatalf("garbage: %s, %d bytes, valid JSON %v", resp.Header.Get("Content-Type"), len(b), json.Valid(b))
		}
		bodies = append(bodies, b)
	}
	if !bytes.Equal(bodies[0], bodies[1]) {
		t.Error("two garbage answers differ: a failure would not replay")
	}
}

func TestResetIsAConnectionReset(t *testing.T) {
	url, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if err := Reset(w); err != nil {
			t.Error(err)
		}
	})
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	_, err := (&http.Client{Transport: tr}).Get(url)
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("got %v, want a connection reset", err)
	}
}

func TestNestedIsDeep(t *testing.T) {
	url, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { Nested(w, 200_000) })
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(b) != 28+400_000 || !strings.HasPrefix(string(b), `{"status":"success","data":[[[`) || !strings.HasSuffix(string(b), "]]]}") {
		t.Fatalf("%d bytes: %.40q", len(b), b)
	}
	// Go's decoder refuses such depth with an error, not a crash.
	var v any
	if err := json.Unmarshal(b, &v); err == nil || !strings.Contains(err.Error(), "depth") {
		t.Errorf("decoding: %v, want a depth error", err)
	}
}

func TestEndlessHeadersNeverEnd(t *testing.T) {
	url, done := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if err := EndlessHeaders(w, r, 1<<40); err != nil {
			t.Error(err)
		}
	})
	tr := &http.Transport{MaxResponseHeaderBytes: 64 << 10}
	defer tr.CloseIdleConnections()
	_, err := (&http.Client{Transport: tr}).Get(url)
	if err == nil || !strings.Contains(err.Error(), "headers exceeded") {
		t.Errorf("got %v, want the transport's header bound", err)
	}
	ended(t, done)
}

func TestEndlessEventsAndSilence(t *testing.T) {
	url, done := serve(t, func(w http.ResponseWriter, r *http.Request) {
		out := StartStream(w)
		if r.URL.Path == "/silent" {
			_, _ = out.Write(TokenEvent)
			_ = out.Flush()
			Hold(r.Context(), time.Minute)
			return
		}
		Repeat(r.Context(), out, TokenEvent, time.Millisecond, 1<<40)
	})
	resp, err := http.Get(url + "/endless")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	events := 0
	for events < 200 && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			events++
		}
	}
	resp.Body.Close()
	if events != 200 {
		t.Errorf("%d events, want 200 and more", events)
	}
	ended(t, done)

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/silent", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, len(TokenEvent))
	if _, err := io.ReadFull(resp.Body, first); err != nil || !bytes.Equal(first, TokenEvent) {
		t.Fatalf("first event %q, %v", first, err)
	}
	more := make(chan int, 1)
	go func() {
		n, _ := resp.Body.Read(make([]byte, 1))
		more <- n
	}()
	select {
	case n := <-more:
		t.Fatalf("read %d more bytes from a silent stream", n)
	case <-time.After(300 * time.Millisecond): // silence is what is tested: a bounded wait for nothing
	}
	cancel()
	resp.Body.Close()
	ended(t, done)
}
