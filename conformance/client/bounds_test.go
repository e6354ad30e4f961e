package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// An operation the server stopped answering is stopped for the whole run
// after bound.DefaultStall deadlines in a row: the client withholds its
// next requests in every area, with the reason and ErrStopped, and other
// operations still go out.
func TestStalledOperationIsWithheldInEveryArea(t *testing.T) {
	var got atomic.Int64
	srv := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/user/model" {
			got.Add(1)
			<-r.Context().Done() // the list never answers
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"success","data":{"id":4}}`))
	})
	u := newTestClient(t, srv.URL).base
	c := New(u, testKey, testKey2, 100*time.Millisecond)
	list := Request{Method: http.MethodGet, Path: "/api/v1/user/model"}
	for i, area := range []string{"Models", "Models", "Datasets"} {
		c.SetArea(area) // a new area does not start the count again
		c.Do(context.Background(), list)
		c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/v1/user/model/4"}) // answered between
		if _, stopped := c.Stopped("listModels"); stopped != (i == 2) {
			t.Fatalf("after %d deadlines, stopped %t", i+1, stopped)
		}
	}
	reason, _ := c.Stopped("listModels")
	if !strings.HasPrefix(reason, "the server stopped answering listModels: 3 deadlines in a row") || !strings.HasSuffix(reason, "stopped in Datasets") {
		t.Errorf("the reason: %q", reason)
	}
	c.SetArea("Isolation")
	x := c.Do(context.Background(), list)
	if x.Error != "not sent: "+reason || !errors.Is(x.Withheld, ErrStopped) || got.Load() != int64(bound.DefaultStall) {
		t.Errorf("after the stop: Error %q, Withheld %v, %d requests reached the server; want it withheld, %d sent", x.Error, x.Withheld, got.Load(), bound.DefaultStall)
	}
	if x := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/v1/user/model/4"}); x.Status != http.StatusOK {
		t.Errorf("another operation: %s", x.Line())
	}
	if _, stopped := c.ServerStopped(); stopped {
		t.Error("one operation's deadlines stopped the whole server")
	}
}

// Event streams that never end are counted apart from the operation's
// refusals: a refusal read whole between them does not hide them.
func TestStreamsThatNeverEndStopTheirOperation(t *testing.T) {
	var streams atomic.Int64
	srv := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("refuse") != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			w.Write([]byte(`{"status":"error","message":"no"}`))
			return
		}
		streams.Add(1)
		hostile.Repeat(r.Context(), hostile.StartStream(w), hostile.TokenEvent, 10*time.Millisecond, 1<<30)
	})
	c := newTestClient(t, srv.URL)
	c.SetLimits(bound.Body, bound.Limits{Bytes: 1 << 20, Duration: 150 * time.Millisecond})
	infer := Request{Method: http.MethodPost, Path: "/api/v1/user/inference", JSON: map[string]any{"query": "q", "model_id": 4}}
	refused := infer
	refused.Query = url.Values{"refuse": {"1"}}
	for i := range bound.DefaultStall {
		if i > 0 {
			if x := c.Do(context.Background(), refused); x.Status != http.StatusUnprocessableEntity {
				t.Fatalf("the refusal: %s", x.Line())
			}
		}
		if resp, x := c.Open(context.Background(), infer); resp != nil {
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			c.Finish(x, body, err)
		}
	}
	reason, stopped := c.Stopped("runInference")
	if !stopped || !strings.Contains(reason, "runInference (its event stream): 3 deadlines in a row") {
		t.Fatalf("after %d streams that never end: stopped %t %q", bound.DefaultStall, stopped, reason)
	}
	if resp, x := c.Open(context.Background(), infer); resp != nil || !errors.Is(x.Withheld, ErrStopped) || streams.Load() != int64(bound.DefaultStall) {
		t.Errorf("after the stop: %s, %d streams opened", x.Line(), streams.Load())
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
