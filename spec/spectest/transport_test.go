package spectest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// reports records what a Transport reports.
type reports struct {
	mu   sync.Mutex
	errs []string
}

func (r *reports) Helper() {}
func (r *reports) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *reports) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

// serve answers every request with serve, on 127.0.0.1.
func serve(t *testing.T, serve func(w http.ResponseWriter, r *http.Request)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(serve))
	t.Cleanup(srv.Close)
	return srv.URL
}

func jsonAnswer(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func streamAnswer(body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}
}

// TestTransportCatchesDrift proves the transport is no rubber stamp: an
// answer that breaks the contract, the envelope or the stream rules is
// reported with the operation, the status and the field; a conforming one
// is not.
func TestTransportCatchesDrift(t *testing.T) {
	const done = "data: {\"type\":\"done\",\"content\":\"\"}\n\ndata: [DONE]\n\n"
	cases := []struct {
		name, method, path string
		serve              func(http.ResponseWriter, *http.Request)
		setup              func(*Transport)
		want               []string // substrings of the report; nil: no report
	}{
		{name: "a conforming model", method: "GET", path: "/api/v1/user/model/7",
			serve: jsonAnswer(200, `{"status":"success","data":{"id":7,"name":"m"}}`)},
		{name: "a model id of the wrong type", method: "GET", path: "/api/v1/user/model/7",
			serve: jsonAnswer(200, `{"status":"success","data":{"id":"seven","name":"m"}}`),
			want:  []string{"contract: getModel (GET /api/v1/user/model/7) → 200", "data.id"}},
		{name: "an undocumented status", method: "GET", path: "/api/v1/user/model/7",
			serve: jsonAnswer(http.StatusTeapot, `{"status":"error","message":"teapot"}`),
			want:  []string{"contract: getModel", "418"}},
		{name: "an undocumented status a test forced", method: "GET", path: "/api/v1/user/model/7",
			serve: jsonAnswer(http.StatusServiceUnavailable, `{"status":"error","message":"down"}`),
			setup: func(tr *Transport) { tr.Undocumented = func(_ *http.Request, s int) bool { return s == 503 } }},
		{name: "a forced status that breaks the error schema", method: "GET", path: "/api/v1/user/model/7",
			serve: jsonAnswer(http.StatusServiceUnavailable, `{"status":"error","message":7}`),
			setup: func(tr *Transport) { tr.Undocumented = func(*http.Request, int) bool { return true } },
			want:  []string{"503 (not documented)", "message"}},
		{name: "an unknown API path answered without the envelope", method: "GET", path: "/api/v1/nothing",
			serve: jsonAnswer(404, `{"error":"not found"}`),
			want:  []string{"envelope: GET /api/v1/nothing → 404", `status is missing`}},
		{name: "JSON labelled text/plain", method: "GET", path: "/api/v1/user/dataset",
			serve: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				_, _ = io.WriteString(w, `{"status":"success","data":[]}`)
			},
			want: []string{"envelope: listDatasets", `Content-Type "text/plain"`}},
		{name: "a success envelope with an error status", method: "GET", path: "/api/v1/user/dataset",
			serve: jsonAnswer(500, `{"status":"success","data":[]}`),
			want:  []string{"a success envelope with an error status"}},
		{name: "a path outside the API is not judged", method: "GET", path: "/healthz",
			serve: jsonAnswer(200, `ok`)},
		{name: "a path outside the API held to the envelope on request", method: "GET", path: "/admin/state",
			serve: jsonAnswer(404, `{"status":"error"}`),
			setup: func(tr *Transport) {
				tr.Envelope = func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/admin/") }
			},
			want: []string{"envelope: GET /admin/state → 404", "without a message string"}},
		{name: "a conforming stream, CRLF and comments", method: "POST", path: "/api/v1/user/inference",
			serve: streamAnswer(": hi\r\nevent: message\r\nid: 1\r\ndata: {\"type\":\"token\",\"content\":\"x\"}\r\n\r\n" + strings.ReplaceAll(done, "\n", "\r\n"))},
		{name: "a stream chunk of an unknown type", method: "POST", path: "/api/v1/user/inference",
			serve: streamAnswer("data: {\"type\":\"weird\"}\n\n" + done),
			want:  []string{"stream: runInference", "x-event-schema", "type"}},
		{name: "a stream chunk that is not JSON", method: "POST", path: "/api/v1/user/inference",
			serve: streamAnswer("data: hello\n\n" + done),
			want:  []string{"neither JSON nor [DONE]"}},
		{name: "a stream line without a field name", method: "POST", path: "/api/v1/user/inference",
			serve: streamAnswer("{\"type\":\"token\",\"content\":\"x\"}\n\n" + done),
			want:  []string{"no SSE field"}},
		{name: "a stream without [DONE]", method: "POST", path: "/api/v1/user/inference",
			serve: streamAnswer("data: {\"type\":\"token\",\"content\":\"x\"}\n\n"),
			want:  []string{"ended without data: [DONE]"}},
		{name: "an event after [DONE]", method: "POST", path: "/api/v1/user/inference",
			serve: streamAnswer(done + "data: {\"type\":\"token\",\"content\":\"x\"}\n\n"),
			want:  []string{"an event after data: [DONE]"}},
		{name: "a stream ending inside an event", method: "POST", path: "/api/v1/user/inference",
			serve: streamAnswer("data: [DONE]\n"),
			want:  []string{"ends inside an event"}},
		{name: "an answer over MaxBody", method: "GET", path: "/api/v1/user/dataset",
			serve: jsonAnswer(200, `{"status":"success","data":[]}`),
			setup: func(tr *Transport) { tr.MaxBody = 8 },
			want:  []string{"over 8 bytes, not judged"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := serve(t, tc.serve)
			rep := &reports{}
			tr := NewTransport(rep, nil)
			if tc.setup != nil {
				tc.setup(tr)
			}
			req, err := http.NewRequest(tc.method, base+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(body) == 0 {
				t.Error("the test got no body: the transport must pass the answer on")
			}
			got := rep.text()
			if tc.want == nil && got != "" {
				t.Fatalf("report got %q, want none", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("report got %q, want it to contain %q", got, w)
				}
			}
		})
	}
}

// TestAStreamIsJudgedAsItIsRead: a bad event is reported when the test
// reads it, while the server still holds the stream open, and a test that
// leaves early is not told the stream lacked its end.
func TestAStreamIsJudgedAsItIsRead(t *testing.T) {
	release := make(chan struct{})
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: not json\n\n")
		_ = http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	rep := &reports{}
	resp, err := NewClient(rep, nil).Post(base+"/api/v1/user/inference", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	for n := 0; n < len("data: not json\n\n"); {
		m, err := resp.Body.Read(buf[n:])
		if err != nil {
			t.Fatal(err)
		}
		n += m
	}
	if got := rep.text(); !strings.Contains(got, "neither JSON nor [DONE]") {
		t.Fatalf("report got %q while the stream is open, want the bad event", got)
	}
	_ = resp.Body.Close()
	if got := rep.text(); strings.Contains(got, "without data: [DONE]") {
		t.Errorf("a stream the test left was judged at its end: %q", got)
	}
}

func TestCommonPrefix(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{[]string{"/api/v1/user/model", "/api/v1/evaluations/{id}"}, "/api/v1/"},
		{[]string{"/api/v1/user/model"}, "/api/v1/user/"},
		{[]string{"/a", "/b"}, "/"},
		{nil, "/"},
	} {
		if got := commonPrefix(tc.paths); got != tc.want {
			t.Errorf("commonPrefix(%q) got %q, want %q", tc.paths, got, tc.want)
		}
	}
}
