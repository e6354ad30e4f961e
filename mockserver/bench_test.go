package mockserver

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/internal/gcfloor"
	"contractkit/internal/loadgen"
	"contractkit/mockserver/lifecycle"
)

// benchServer is a Server with the default fixtures, a FakeClock and
// TokenInterval 0, driven through ServeHTTP without a network.
func benchServer(b *testing.B) (*Server, int64) {
	b.Helper()
	fx := fixtures.Default()
	s, err := New(Config{Keys: []string{testKey1}, Seed: 1, Fixtures: &fx, Clock: lifecycle.NewFakeClock(testEpoch)})
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range s.store.Account(s.keys[0].account).Models() {
		if m.Status != nil && *m.Status == "ready" {
			return s, m.ID
		}
	}
	b.Fatal("the fixtures have no ready model")
	return nil, 0
}

// validateOnce checks one answer of the benchmarked request against the
// contract, outside the timed loop: the recorded answer goes through the
// harness's transport as if it came over the network.
func validateOnce(b *testing.B, req *http.Request, rec *httptest.ResponseRecorder) {
	b.Helper()
	rep := &fakeReporter{}
	resp, err := newContractTransport(rep, recorded{rec}).RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("status got %d, want 200: %s", resp.StatusCode, body)
	}
	if got := rep.text(); got != "" {
		b.Fatalf("the answer breaks the contract: %s", got)
	}
}

// recorded is a RoundTripper that answers with a recorded answer.
type recorded struct{ rec *httptest.ResponseRecorder }

func (r recorded) RoundTrip(*http.Request) (*http.Response, error) { return r.rec.Result(), nil }

// BenchmarkGetModel is the hot path: authenticate, route, validate the
// request, read one model, write the envelope.
func BenchmarkGetModel(b *testing.B) {
	s, id := benchServer(b)
	path := fmt.Sprintf("/api/v1/user/model/%d", id)
	newReq := func() *http.Request {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+testKey1)
		return req
	}
	benchServe(b, s, newReq)
}

// BenchmarkCreateConversation is the hot JSON POST: authenticate, route,
// read and validate the body, create a conversation, write the envelope.
// The account keeps every conversation, as under load.
func BenchmarkCreateConversation(b *testing.B) {
	s, id := benchServer(b)
	body := fmt.Sprintf(`{"model_id":%d,"title":"Warranty questions"}`, id)
	newReq := func() *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/user/conversations", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testKey1)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	benchServe(b, s, newReq)
}

// benchServe checks one answer against the contract, then serves a new
// request per iteration, each answered 200.
func benchServe(b *testing.B, s *Server, newReq func() *http.Request) {
	req, rec := newReq(), httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	validateOnce(b, req, rec)

	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, newReq())
		if rec.Code != http.StatusOK {
			b.Fatalf("status got %d, want 200", rec.Code)
		}
	}
}

// BenchmarkStream is one whole inference stream, from the request to
// data: [DONE], with no pacing between tokens.
func BenchmarkStream(b *testing.B) {
	s, id := benchServer(b)
	body := fmt.Sprintf(`{"query":"What is the standard warranty period and what does it cover?","model_id":%d,"response_length_preference":"detailed"}`, id)
	newReq := func() *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/user/inference", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testKey1)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	req, rec := newReq(), httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	validateOnce(b, req, rec)
	if !strings.HasSuffix(rec.Body.String(), "data: [DONE]\n\n") {
		b.Fatal("the stream does not end with [DONE]")
	}

	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, newReq())
		if rec.Code != http.StatusOK || !strings.HasSuffix(rec.Body.String(), "data: [DONE]\n\n") {
			b.Fatalf("status %d, the stream did not end with [DONE]", rec.Code)
		}
	}
}

// canned is an answer of the full pipeline, replayed by bareHandler.
type canned struct {
	status int
	header http.Header
	body   []byte
}

// bareHandler is the floor any net/http server pays: drain the body, write
// the same headers and bytes the mock wrote. The benchmarks below report
// the mock's throughput as a share of it (mock/bare, higher is better).
func (c canned) bareHandler(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	h := w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	w.WriteHeader(c.status)
	_, _ = w.Write(c.body)
}

// benchPair measures the mock against a bare net/http server writing the
// same bytes, as make loadtest does but inside go test: both listen on
// 127.0.0.1 in this process, the raw keep-alive load generator of make
// loadtest (internal/loadgen) sends each a batch in turn, who goes first
// alternating, and the ratio is the mock's req/s over the bare server's
// (higher is better; the targets are mock/bare >= 0.6 for GET by id
// and >= 0.4 for a validated JSON POST). The mock runs with its GC floor on,
// as cmd/mockserver starts it.
func benchPair(b *testing.B, s *Server, method, path string, body []byte) {
	b.Helper()
	newReq := func() *http.Request {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req := httptest.NewRequest(method, path, rd)
		req.Header.Set("Authorization", "Bearer "+testKey1)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req
	}
	req, rec := newReq(), httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	validateOnce(b, newReq(), rec)
	answer := canned{status: rec.Code, header: rec.Result().Header, body: rec.Body.Bytes()}

	floor := gcfloor.Start(64<<20, 100)
	defer floor.Stop()
	mock, bare := httptest.NewServer(s), httptest.NewServer(http.HandlerFunc(answer.bareHandler))
	defer mock.Close()
	defer bare.Close()
	const conns, batch = 32, 3000
	type target struct {
		addr    string
		req     loadgen.Request
		elapsed time.Duration
		ok      int64
	}
	targets := []*target{}
	for _, srv := range []*httptest.Server{mock, bare} {
		addr := strings.TrimPrefix(srv.URL, "http://")
		h := map[string]string{"Authorization": "Bearer " + testKey1}
		if body != nil {
			h["Content-Type"] = "application/json"
		}
		t := &target{addr: addr, req: loadgen.NewRequest(path, method, addr, path, h, body)}
		loadgen.Send(t.addr, t.req, conns, batch/10, time.Minute) // warm up: connections, caches
		targets = append(targets, t)
	}
	round := 0
	for b.Loop() {
		order := []*target{targets[0], targets[1]}
		if round%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		round++
		for _, t := range order {
			runtime.GC() // each batch starts without the other's garbage
			res := loadgen.Send(t.addr, t.req, conns, batch, time.Minute)
			if res.Failed > 0 || res.OK != batch {
				b.Fatalf("%s %s: %d ok, %d failed (first: %v)", method, path, res.OK, res.Failed, res.FirstErr)
			}
			t.elapsed += res.Elapsed
			t.ok += res.OK
		}
	}
	rate := func(t *target) float64 { return float64(t.ok) / t.elapsed.Seconds() }
	b.ReportMetric(rate(targets[0]), "mock-req/s")
	b.ReportMetric(rate(targets[1]), "bare-req/s")
	b.ReportMetric(rate(targets[0])/rate(targets[1]), "mock/bare")
}

// BenchmarkRatioGetModel: authenticated, routed, validated GET of a model
// by id against a bare handler writing the same bytes (target mock/bare >=
// 0.6).
func BenchmarkRatioGetModel(b *testing.B) {
	s, id := benchServer(b)
	benchPair(b, s, http.MethodGet, fmt.Sprintf("/api/v1/user/model/%d", id), nil)
}

// BenchmarkRatioCreateConversation: a JSON POST whose body is validated
// against the contract, against a bare handler (target mock/bare >= 0.4).
func BenchmarkRatioCreateConversation(b *testing.B) {
	s, id := benchServer(b)
	benchPair(b, s, http.MethodPost, "/api/v1/user/conversations", fmt.Appendf(nil, `{"model_id":%d,"title":"Warranty questions"}`, id))
}

// streamSink is the ResponseWriter of one benchmarked stream: it keeps only
// the last bytes, to tell whether the stream ended with [DONE].
type streamSink struct {
	h       http.Header
	tail    []byte
	started func()
}

func (w *streamSink) Header() http.Header { return w.h }
func (w *streamSink) WriteHeader(int)     {}
func (w *streamSink) Flush() {
	if w.started != nil {
		w.started()
		w.started = nil
	}
}

func (w *streamSink) Write(p []byte) (int, error) {
	w.tail = append(w.tail, p...)
	if len(w.tail) > 64 {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-64:]...)
	}
	return len(p), nil
}

// BenchmarkOpenStreams opens streams paced inference streams at once,
// measures the Go heap and goroutine stacks they hold while every one is
// open, and checks that every one ends with [DONE]. It measures the
// handler's share only: the connection's buffers in net/http are not here
// (make loadtest reports the whole process's RSS per open stream).
func BenchmarkOpenStreams(b *testing.B) {
	const streams = 1000
	fx := fixtures.Default()
	s, err := New(Config{Keys: []string{testKey1}, Seed: 1, Fixtures: &fx, Clock: lifecycle.NewFakeClock(testEpoch),
		TokenInterval: 100 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	_, id := benchServer(b) // the fixtures are the same: the same ids
	body := fmt.Sprintf(`{"query":"What is the standard warranty period and what does it cover?","model_id":%d,"max_tokens":30}`, id)
	var heapPer, stackPer float64
	for b.Loop() {
		var before, peak runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var started, finished sync.WaitGroup
		var open, ended atomic.Int64
		started.Add(streams)
		for range streams {
			finished.Go(func() {
				req := httptest.NewRequest(http.MethodPost, "/api/v1/user/inference", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+testKey1)
				req.Header.Set("Content-Type", "application/json")
				w := &streamSink{h: http.Header{}, started: func() { open.Add(1); started.Done() }}
				s.ServeHTTP(w, req)
				open.Add(-1)
				if bytes.HasSuffix(w.tail, []byte("data: [DONE]\n\n")) {
					ended.Add(1)
				}
			})
		}
		started.Wait()
		runtime.GC()
		runtime.ReadMemStats(&peak)
		if n := open.Load(); n != streams {
			b.Fatalf("%d of %d streams open at the peak: the pacing is too short for this machine", n, streams)
		}
		finished.Wait()
		if n := ended.Load(); n != streams {
			b.Fatalf("%d of %d streams ended with [DONE]", n, streams)
		}
		heapPer = float64(int64(peak.HeapInuse)-int64(before.HeapInuse)) / streams
		stackPer = float64(int64(peak.StackInuse)-int64(before.StackInuse)) / streams
	}
	b.ReportMetric(heapPer, "heap-B/stream")
	b.ReportMetric(stackPer, "stack-B/stream")
	b.ReportMetric(heapPer+stackPer, "B/stream")
}
