package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"contractkit/bound"
	"contractkit/internal/hostile"
)

// serveFunc starts h for the test.
func serveFunc(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// An answer over a bound fails its exchange with the bound's reason and
// size, not a hang or memory without end.
func TestAnswerOverABoundNamesTheBound(t *testing.T) {
	flood := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		hostile.Endless(w, r, "application/json", []byte(`{"data":[`), ' ', 64<<20)
	})
	headers := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		_ = hostile.EndlessHeaders(w, r, 64<<20)
	})
	for name, tc := range map[string]struct {
		srv  *httptest.Server
		want string
	}{
		"body":    {flood, "the answer's body is over 64 KiB"},
		"headers": {headers, "the answer's headers are over"},
	} {
		t.Run(name, func(t *testing.T) {
			c := newTestClient(t, tc.srv.URL)
			c.SetLimits(bound.Limits{Bytes: 64 << 10}, bound.Stream)
			x := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/v1/user/model"})
			if !strings.Contains(x.Error, tc.want) {
				t.Errorf("Error got %q, want it to name the bound: %q", x.Error, tc.want)
			}
			if len(x.Raw) > 64<<10 {
				t.Errorf("kept %d bytes of the answer, over the bound", len(x.Raw))
			}
		})
	}
}

// A stream that goes silent is cut by the stream bound's idle limit, and
// Finish records the bound whatever the reader made of the cut.
func TestSilentStreamIsCutByTheIdleBound(t *testing.T) {
	srv := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		out := hostile.StartStream(w)
		_, _ = out.Write([]byte("data: {\"type\":\"token\",\"content\":\"a\"}\n\n"))
		_ = out.Flush()
		hostile.Hold(r.Context(), time.Minute)
	})
	c := newTestClient(t, srv.URL)
	c.SetLimits(bound.Body, bound.Limits{Bytes: 1 << 20, Idle: 200 * time.Millisecond})
	begin := time.Now()
	resp, x := c.Open(context.Background(), Request{Method: http.MethodPost, Path: "/api/v1/user/inference"})
	if resp == nil {
		t.Fatalf("no answer: %s", x.Error)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.Finish(x, body, err)
	if !strings.Contains(x.Error, "the stream sent no event for 200ms") {
		t.Errorf("Error got %q, want the idle bound", x.Error)
	}
	if took := time.Since(begin); took > 30*time.Second {
		t.Errorf("the silent stream held the read %s", took)
	}
}

// A server that stops answering has its area stopped after
// bound.DefaultStall deadlines in a row: the client withholds the area's
// next requests with the reason, and other areas still send.
func TestStalledAreaIsWithheld(t *testing.T) {
	var got atomic.Int64
	srv := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		<-r.Context().Done() // never answers
	})
	u := newTestClient(t, srv.URL).base
	c := New(u, testKey, testKey2, 100*time.Millisecond)
	c.SetArea("Models")
	for range bound.DefaultStall {
		c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/v1/user/model"})
	}
	reason, stopped := c.Stopped("Models")
	if !stopped || !strings.Contains(reason, "stopped answering") {
		t.Fatalf("Stopped got %q %t after %d deadlines, want the area stopped", reason, stopped, bound.DefaultStall)
	}
	x := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/v1/user/model"})
	if !strings.HasPrefix(x.Error, "not sent: the server stopped answering") || got.Load() != int64(bound.DefaultStall) {
		t.Errorf("after the stop: Error %q, %d requests reached the server; want it withheld, %d sent", x.Error, got.Load(), bound.DefaultStall)
	}
	if _, stopped := c.Stopped("Datasets"); stopped {
		t.Error("another area is stopped by one area's deadlines")
	}
}

// The log a report shows keeps excerpts, not bodies, and at most
// LogFirst+LogLast exchanges of a check that polls.
func TestLogIsBounded(t *testing.T) {
	srv := echoServer(t)
	c := newTestClient(t, srv.URL)
	n := LogFirst + LogLast + 25
	var first, last string
	for i := range n {
		x := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/v1/user/model", Header: http.Header{"X-N": {strings.Repeat("i", i+1)}}})
		if len(x.Raw) == 0 {
			t.Fatal("the caller's exchange lost its body")
		}
		if i == 0 {
			first = x.RequestHeader.Get("X-N")
		}
		last = x.RequestHeader.Get("X-N")
	}
	log := c.Log()
	if len(log) != LogFirst+LogLast || c.Logged() != n {
		t.Fatalf("log holds %d of %d logged, want %d of %d", len(log), c.Logged(), LogFirst+LogLast, n)
	}
	if log[0].RequestHeader.Get("X-N") != first || log[len(log)-1].RequestHeader.Get("X-N") != last {
		t.Error("the log does not keep the first and the last exchanges")
	}
	for _, x := range log {
		if x.Raw != nil || x.Sent != nil {
			t.Fatal("the log keeps a whole body")
		}
	}
}
