package bound

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"contractkit/internal/hostile"
)

// Real servers on 127.0.0.1 that hang, drip, flood, never end a stream, go
// silent, send garbage, reset and nest JSON 200,000 deep (internal/hostile),
// read the way the suite's client will: the request's context cancelled
// by the cut. Durations are short; each test bounds its own wall time.

func serveHostile(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// get sends a GET and reads the answer within lim, as the client will:
// headers bounded by the transport, the body by a Reader whose cut
// cancels the request. It returns the body, the error (bound or
// transport) and how long it took.
func get(t *testing.T, url string, lim Limits) ([]byte, error, time.Duration) {
	t.Helper()
	tr := Transport(nil, 64<<10)
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // the check's timeout: never reached
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	start := time.Now()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, FromTransport(err), time.Since(start)
	}
	defer resp.Body.Close()
	body, err := ReadAll(resp.Body, lim, cancel)
	return body, err, time.Since(start)
}

// within fails the test when a read took longer than d: the bounds, not
// the 30 s timeout, must end it.
func within(t *testing.T, took, d time.Duration) {
	t.Helper()
	if took > d {
		t.Errorf("took %v, want under %v", took, d)
	}
}

func TestHostileEndlessBodyIsCutAtItsBound(t *testing.T) {
	url := serveHostile(t, func(w http.ResponseWriter, r *http.Request) {
		hostile.Endless(w, r, "application/json", []byte(`{"status":"success","data":[`), ' ', 1<<40)
	})
	body, err, took := get(t, url, Limits{Bytes: 1 << 20, Rate: 1 << 10, Grace: time.Second})
	wantReason(t, err, OverBody)
	if len(body) != 1<<20 {
		t.Errorf("kept %d bytes, want 1 MiB", len(body))
	}
	within(t, took, 5*time.Second)
}

func TestHostileDripIsCutAfterTheGrace(t *testing.T) {
	url := serveHostile(t, func(w http.ResponseWriter, r *http.Request) {
		hostile.Drip(w, r, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, []byte(`{"status":"success","data":{"id":4,"name":"m"}}`), 200*time.Millisecond)
	})
	_, err, took := get(t, url, Limits{Bytes: 1 << 20, Rate: 1 << 10, Grace: 300 * time.Millisecond})
	wantReason(t, err, TooSlow)
	within(t, took, 3*time.Second)
}

func TestHostileHangAfterTheHeadersIsCut(t *testing.T) {
	url := serveHostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		hostile.Hold(r.Context(), time.Minute)
	})
	_, err, took := get(t, url, Limits{Rate: 1 << 10, Grace: 300 * time.Millisecond})
	wantReason(t, err, TooSlow)
	within(t, took, 3*time.Second)
}

func TestHostileHangBeforeTheHeadersIsADeadline(t *testing.T) {
	url := serveHostile(t, func(w http.ResponseWriter, r *http.Request) { hostile.Hold(r.Context(), time.Minute) })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	_, err := http.DefaultClient.Do(req)
	if Classify(FromTransport(err)) != Deadline {
		t.Errorf("no headers before the deadline: %v is not a Deadline", err)
	}
}

func TestHostileEndlessHeadersAreOverTheHeaderBound(t *testing.T) {
	url := serveHostile(t, func(w http.ResponseWriter, r *http.Request) { _ = hostile.EndlessHeaders(w, r, 1<<40) })
	_, err, took := get(t, url, Body)
	e := wantReason(t, err, OverHeader)
	if e.Limit != 64<<10 || e.Error() != "the answer's headers are over 64 KiB" || Classify(err) != OverSize {
		t.Errorf("%+v: %q", e, e)
	}
	within(t, took, 5*time.Second)
	if FromTransport(errors.New("dial tcp: connection refused")).Error() != "dial tcp: connection refused" {
		t.Error("FromTransport changed another error")
	}
}

func streamLimits() Limits {
	return Limits{Bytes: 1 << 20, Event: 64 << 10, Idle: 300 * time.Millisecond, Duration: time.Second}
}

func TestHostileStreamThatNeverEndsIsCutAtItsDuration(t *testing.T) {
	url := serveHostile(t, func(w http.ResponseWriter, r *http.Request) {
		hostile.Repeat(r.Context(), hostile.StartStream(w), hostile.TokenEvent, 10*time.Millisecond, 1<<40)
	})
	body, err, took := get(t, url, streamLimits())
	wantReason(t, err, TooLong)
	if !strings.HasPrefix(string(body), string(hostile.TokenEvent)) {
		t.Errorf("read %.60q", body)
	}
	within(t, took, 4*time.Second)
}

func TestHostileStreamThatGoesSilentIsCutWhenIdle(t *testing.T) {
	url := serveHostile(t, func(w http.ResponseWriter, r *http.Request) {
		out := hostile.StartStream(w)
		_, _ = out.Write(hostile.TokenEvent)
		_ = out.Flush()
		hostile.Hold(r.Context(), time.Minute)
	})
	body, err, took := get(t, url, streamLimits())
	wantReason(t, err, Idle)
	if string(body) != string(hostile.TokenEvent) {
		t.Errorf("read %q, want the first event", body)
	}
	within(t, took, 3*time.Second)
}

func TestHostileStreamFloodIsCutAtItsBound(t *testing.T) {
	url := serveHostile(t, func(w http.ResponseWriter, r *http.Request) {
		hostile.Repeat(r.Context(), hostile.StartStream(w), []byte(strings.Repeat(string(hostile.TokenEvent), 100)), 0, 1<<40)
	})
	body, err, took := get(t, url, streamLimits())
	wantReason(t, err, OverStream)
	if len(body) != 1<<20 {
		t.Errorf("kept %d bytes", len(body))
	}
	within(t, took, 4*time.Second)
}

func TestHostileEventWithoutEndIsCutAtTheEventBound(t *testing.T) {
	url := serveHostile(t, func(w http.ResponseWriter, r *http.Request) {
		out := hostile.StartStream(w)
		_, _ = out.Write([]byte("data: "))
		hostile.Repeat(r.Context(), out, hostile.Filler('x'), 0, 1<<40)
	})
	_, err, took := get(t, url, streamLimits())
	wantReason(t, err, OverEvent)
	within(t, took, 4*time.Second)
}

// TestHostileAnswersTheBoundsDoNotJudge: garbage, a reset and JSON nested
// 200,000 deep are read within the bounds and end at once; judging them is
// the judges' work (the decoder refuses the depth, the garbage is no JSON),
// and a reset is a transport error, not a bound.
func TestHostileAnswersTheBoundsDoNotJudge(t *testing.T) {
	garbage := serveHostile(t, func(w http.ResponseWriter, r *http.Request) { hostile.Garbage(w, 64<<10) })
	body, err, took := get(t, garbage, Body)
	if err != nil || len(body) != 64<<10 || json.Valid(body) {
		t.Errorf("garbage: %d bytes, %v", len(body), err)
	}
	within(t, took, 2*time.Second)

	nested := serveHostile(t, func(w http.ResponseWriter, r *http.Request) { hostile.Nested(w, 200_000) })
	body, err, took = get(t, nested, Body)
	var v any
	if err != nil || len(body) < 400_000 || json.Unmarshal(body, &v) == nil {
		t.Errorf("nested: %d bytes, %v, decoded without error", len(body), err)
	}
	within(t, took, 2*time.Second)

	reset := serveHostile(t, func(w http.ResponseWriter, r *http.Request) { _ = hostile.Reset(w) })
	_, err, took = get(t, reset, Body)
	var e *Error
	if err == nil || errors.As(err, &e) || Classify(err) != Broken {
		t.Errorf("reset: %v, want a transport error, no bound", err)
	}
	within(t, took, 2*time.Second)
}
