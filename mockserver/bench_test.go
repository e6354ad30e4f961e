package mockserver

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"contractkit/fixtures"
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
// contract, outside the timed loop.
func validateOnce(b *testing.B, req *http.Request, rec *httptest.ResponseRecorder) {
	b.Helper()
	rep := &fakeReporter{}
	ct := newContractTransport(rep, nil)
	resp := rec.Result()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		b.Fatalf("status got %d, want 200: %s", resp.StatusCode, body)
	}
	if mediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		resp.Body = &sseChecker{ct: ct, req: req, resp: resp, r: io.NopCloser(bytes.NewReader(body))}
		_, _ = io.ReadAll(resp.Body)
	} else {
		ct.check(req, resp, body)
	}
	if got := rep.text(); got != "" {
		b.Fatalf("the answer breaks the contract: %s", got)
	}
}

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
