package mockserver

// This file holds the test harness every other test of the package goes
// through: a mock on 127.0.0.1 driven by a FakeClock, and a client whose
// transport checks EVERY answer against the contract (spec.Strict, through
// the test companion spec/spectest) and the mock's own rules before a test
// sees it. A mock that drifts from the spec fails whichever test made the
// drifting request, with spec.Describe's readable lines.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver/lifecycle"
	"contractkit/spec/spectest"
)

// The two accounts of every test server.
const (
	testKey1 = "sk-test-account-one-4f9c2a71d0"
	testKey2 = "sk-test-account-two-8b1d7e33c5"
)

// testEpoch is where every FakeClock starts.
var testEpoch = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// ---- the server ----

type serverOptions struct {
	cfg      Config
	fixtures bool
	wrap     func(http.Handler) http.Handler
	hook     func(*Server)
}

type serverOption func(*serverOptions)

// withoutFixtures starts both accounts empty.
func withoutFixtures() serverOption { return func(o *serverOptions) { o.fixtures = false } }

// withConfig changes the Config before New.
func withConfig(f func(*Config)) serverOption { return func(o *serverOptions) { f(&o.cfg) } }

// withWrap puts a middleware between the listener and Server.ServeHTTP.
func withWrap(w func(http.Handler) http.Handler) serverOption {
	return func(o *serverOptions) { o.wrap = w }
}

// withHook changes the built Server before it serves its first request.
func withHook(h func(*Server)) serverOption { return func(o *serverOptions) { o.hook = h } }

type testServer struct {
	srv   *Server
	hs    *httptest.Server
	clock *lifecycle.FakeClock
	url   string
}

// newTestServer builds a Server with a FakeClock, TokenInterval 0, the
// default fixtures preloaded in both accounts (withoutFixtures: none), keys
// testKey1 and testKey2, served by an httptest.Server on 127.0.0.1.
func newTestServer(t testing.TB, opts ...serverOption) *testServer {
	t.Helper()
	clock := lifecycle.NewFakeClock(testEpoch)
	o := serverOptions{
		cfg: Config{
			Keys: []string{testKey1, testKey2}, Seed: 7, Clock: clock,
			TokenInterval: 0, EvalDuration: 10 * time.Second,
		},
		fixtures: true,
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.fixtures {
		b := fixtures.Default()
		o.cfg.Fixtures = &b
	}
	srv, err := New(o.cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if o.hook != nil {
		o.hook(srv)
	}
	var h http.Handler = srv
	if o.wrap != nil {
		h = o.wrap(srv)
	}
	hs := httptest.NewUnstartedServer(h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.1: %v", err)
	}
	_ = hs.Listener.Close()
	hs.Listener = ln
	hs.Config.RegisterOnShutdown(srv.Shutdown)
	hs.Start()
	t.Cleanup(func() {
		srv.Shutdown() // ends open streams, so Close does not wait for them
		hs.CloseClientConnections()
		hs.Close()
	})
	return &testServer{srv: srv, hs: hs, clock: clock, url: hs.URL}
}

// client returns a client of the account of key ("" sends no Authorization)
// that reports contract mismatches to t.
func (ts *testServer) client(t testing.TB, key string) *apiClient {
	return &apiClient{
		t: t, base: ts.url, key: key,
		http: &http.Client{Transport: newContractTransport(t, ts.hs.Client().Transport)},
	}
}

// ---- the validating transport ----

// newContractTransport is the contract's test companion (spectest) with the
// mock's promises on top: its own endpoints (/admin, /healthz, unknown
// paths) answer the seed's envelope too, every error message says what went
// wrong (not blank), and /openapi.yaml is served text/yaml. adjust changes
// the companion before its first request.
func newContractTransport(rep spectest.Reporter, base http.RoundTripper, adjust ...func(*spectest.Transport)) http.RoundTripper {
	tr := spectest.NewTransport(rep, base)
	tr.Envelope = func(r *http.Request) bool { return r.URL.Path != "/openapi.yaml" }
	for _, a := range adjust {
		a(tr)
	}
	return mockRules{rep: rep, next: tr}
}

// mockRules checks what the mock promises beyond the contract.
type mockRules struct {
	rep  spectest.Reporter
	next http.RoundTripper
}

func (m mockRules) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := m.next.RoundTrip(req)
	if err != nil || req.Method == http.MethodHead || mediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		return resp, err
	}
	m.rep.Helper()
	if req.URL.Path == "/openapi.yaml" && resp.StatusCode == http.StatusOK {
		if got := mediaType(resp.Header.Get("Content-Type")); got != "text/yaml" {
			m.rep.Errorf("mock: %s %s: Content-Type %q, want text/yaml (shown by a browser)", req.Method, req.URL.Path, got)
		}
		return resp, nil
	}
	// spectest read the answer whole already: reading it again is free.
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var env struct {
		Message *string `json:"message"`
	}
	if resp.StatusCode >= 400 && json.Unmarshal(body, &env) == nil && env.Message != nil && strings.TrimSpace(*env.Message) == "" {
		m.rep.Errorf("mock: %s %s → %d: an error envelope with a blank message: the mock always says what went wrong", req.Method, req.URL.RequestURI(), resp.StatusCode)
	}
	return resp, nil
}

func snippet(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// ---- the client ----

type apiClient struct {
	t    testing.TB
	base string
	key  string
	http *http.Client
}

// request is one request being built by reqOpts.
type request struct {
	body   io.Reader
	header http.Header
	ctx    context.Context
	noKey  bool
}

type reqOpt func(*request)

// withJSON sends v as the JSON body ([]byte and string are sent as they are).
func withJSON(v any) reqOpt {
	return func(r *request) {
		var b []byte
		switch x := v.(type) {
		case []byte:
			b = x
		case string:
			b = []byte(x)
		default:
			var err error
			if b, err = json.Marshal(v); err != nil {
				panic(err)
			}
		}
		r.body = bytes.NewReader(b)
		r.header.Set("Content-Type", "application/json")
	}
}

// withBody sends body with the given Content-Type ("" sends none).
func withBody(contentType string, body io.Reader) reqOpt {
	return func(r *request) {
		r.body = body
		if contentType != "" {
			r.header.Set("Content-Type", contentType)
		}
	}
}

func withHeader(k, v string) reqOpt { return func(r *request) { r.header.Set(k, v) } }

func withContext(ctx context.Context) reqOpt { return func(r *request) { r.ctx = ctx } }

// withAuth sends this Authorization header instead of the client's key
// ("" sends none).
func withAuth(h string) reqOpt {
	return func(r *request) {
		r.noKey = true
		if h != "" {
			r.header.Set("Authorization", h)
		}
	}
}

func (c *apiClient) newRequest(method, path string, opts ...reqOpt) *http.Request {
	c.t.Helper()
	r := request{header: http.Header{}, ctx: context.Background()}
	if c.key != "" {
		r.header.Set("Authorization", "Bearer "+c.key)
	}
	for _, o := range opts {
		o(&r)
	}
	if r.noKey && c.key != "" && r.header.Get("Authorization") == "Bearer "+c.key {
		r.header.Del("Authorization")
	}
	req, err := http.NewRequestWithContext(r.ctx, method, c.base+path, r.body)
	if err != nil {
		c.t.Fatalf("new request %s %s: %v", method, path, err)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	return req
}

// open sends a request and returns the answer unread (streams).
func (c *apiClient) open(method, path string, opts ...reqOpt) (*http.Response, error) {
	c.t.Helper()
	return c.http.Do(c.newRequest(method, path, opts...))
}

// apiResponse is a whole answer, read and checked.
type apiResponse struct {
	Status int
	Header http.Header
	Body   []byte
	Env    struct {
		Status  string          `json:"status"`
		Data    json.RawMessage `json:"data"`
		Message string          `json:"message"`
	}
	what string
}

// do sends a request and reads the whole answer.
func (c *apiClient) do(method, path string, opts ...reqOpt) *apiResponse {
	c.t.Helper()
	resp, err := c.open(method, path, opts...)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	r := &apiResponse{Status: resp.StatusCode, Header: resp.Header, Body: body, what: method + " " + path}
	if mediaType(resp.Header.Get("Content-Type")) == "application/json" {
		_ = json.Unmarshal(body, &r.Env)
	}
	return r
}

func (c *apiClient) get(path string, opts ...reqOpt) *apiResponse {
	c.t.Helper()
	return c.do(http.MethodGet, path, opts...)
}

func (c *apiClient) post(path string, body any, opts ...reqOpt) *apiResponse {
	c.t.Helper()
	if body != nil {
		opts = append([]reqOpt{withJSON(body)}, opts...)
	}
	return c.do(http.MethodPost, path, opts...)
}

// want fails the test unless the answer has status.
func (r *apiResponse) want(t testing.TB, status int) *apiResponse {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status got %d, want %d; body: %s", r.what, r.Status, status, snippet(r.Body))
	}
	return r
}

// wantError fails the test unless the answer is an error envelope with
// status whose message contains every one of parts (case-insensitive).
func (r *apiResponse) wantError(t testing.TB, status int, parts ...string) *apiResponse {
	t.Helper()
	r.want(t, status)
	if r.Env.Status != "error" {
		t.Fatalf("%s: envelope status got %q, want \"error\"", r.what, r.Env.Status)
	}
	for _, p := range parts {
		if !strings.Contains(strings.ToLower(r.Env.Message), strings.ToLower(p)) {
			t.Errorf("%s: message got %q, want it to mention %q", r.what, r.Env.Message, p)
		}
	}
	return r
}

// data decodes the success envelope's data into v.
func (r *apiResponse) data(t testing.TB, v any) {
	t.Helper()
	if r.Env.Status != "success" {
		t.Fatalf("%s: envelope status got %q, want \"success\"; body: %s", r.what, r.Env.Status, snippet(r.Body))
	}
	if err := json.Unmarshal(r.Env.Data, v); err != nil {
		t.Fatalf("%s: decoding data: %v; body: %s", r.what, err, snippet(r.Body))
	}
}

// ---- multipart bodies ----

// filePart is one file of a multipart body.
type filePart struct {
	field, name string
	data        []byte
}

// fixtureFile is an upload file of the fixtures, sent as a "files" part.
func fixtureFile(t testing.TB, name string) filePart {
	t.Helper()
	b, err := fixtures.ReadFile(name)
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	base := name[strings.LastIndex(name, "/")+1:]
	return filePart{field: "files", name: base, data: b}
}

// multipartBody builds a form of fields (name, value pairs) and files.
func multipartBody(t testing.TB, fields [][2]string, files ...filePart) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		field := f.field
		if field == "" {
			field = "files"
		}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, field, f.name))
		h.Set("Content-Type", "application/octet-stream")
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), &buf
}

// ---- event streams ----

// chunkJSON is one decoded event of an inference stream.
type chunkJSON struct {
	Type           string         `json:"type"`
	Content        string         `json:"content"`
	Sources        []string       `json:"sources"`
	ConversationID string         `json:"conversation_id"`
	ThreadID       string         `json:"thread_id"`
	TokensUsed     *int           `json:"tokens_used"`
	LatencyMS      *int64         `json:"latency_ms"`
	Metadata       map[string]any `json:"metadata"`
	Message        string         `json:"message"`
}

// streamResult is a parsed inference stream.
type streamResult struct {
	Chunks []chunkJSON
	// DoneMarker reports that the stream ended with data: [DONE].
	DoneMarker bool
	// Text is the token chunks joined.
	Text string
	// Tokens counts the token chunks.
	Tokens int
	// Final is the done chunk, nil when there was none.
	Final *chunkJSON
}

func (s *streamResult) count(typ string) int {
	n := 0
	for _, c := range s.Chunks {
		if c.Type == typ {
			n++
		}
	}
	return n
}

// sseReader reads the data of one event at a time.
type sseReader struct{ br *bufio.Reader }

func newSSEReader(r io.Reader) *sseReader { return &sseReader{br: bufio.NewReader(r)} }

// next returns the data of the next event.
func (r *sseReader) next() (string, error) {
	var data []string
	for range maxEventLines {
		line, err := r.br.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && len(data) == 0 {
				return "", io.EOF
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if len(data) > 0 {
				return strings.Join(data, "\n"), nil
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(v, " "))
		}
	}
	return "", fmt.Errorf("an event of more than %d lines", maxEventLines)
}

// maxEventLines bounds one event of a stream under test.
const maxEventLines = 10000

// parseStream reads events until [DONE], the end or an error (returned).
func parseStream(t testing.TB, r io.Reader) (*streamResult, error) {
	t.Helper()
	sr := newSSEReader(r)
	res := &streamResult{}
	var text strings.Builder
	defer func() { res.Text = text.String() }()
	for range 100000 {
		data, err := sr.next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, err
		}
		if data == "[DONE]" {
			res.DoneMarker = true
			continue
		}
		var c chunkJSON
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("stream chunk %q: %v", data, err)
		}
		res.Chunks = append(res.Chunks, c)
		switch c.Type {
		case "token":
			res.Tokens++
			text.WriteString(c.Content)
		case "done":
			cc := c
			res.Final = &cc
		}
	}
	t.Fatal("stream: more than 100000 events")
	return res, nil
}

// ---- tests of the harness itself ----

// fakeReporter records what the transport reports.
type fakeReporter struct {
	mu   sync.Mutex
	errs []string
}

func (f *fakeReporter) Helper() {}
func (f *fakeReporter) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeReporter) text() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.errs, "\n")
}

// TestHarnessCatchesDrift proves the harness is not a rubber stamp: an
// answer that breaks the contract (spectest's own tests prove each rule) or
// one of the mock's promises is reported, with readable lines.
func TestHarnessCatchesDrift(t *testing.T) {
	cases := []struct {
		name   string
		method string
		path   string
		serve  func(w http.ResponseWriter)
		want   []string // substrings of the report; nil: no report
	}{
		{
			name: "valid model", method: "GET", path: "/api/v1/user/model/7",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"status":"success","data":{"id":7,"name":"m"}}`)
			},
		},
		{
			name: "model id of the wrong type", method: "GET", path: "/api/v1/user/model/7",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"status":"success","data":{"id":"seven","name":"m"}}`)
			},
			want: []string{"contract:", "getModel", "data.id"},
		},
		{
			name: "an admin answer without the envelope", method: "GET", path: "/admin/state",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/plain")
				_, _ = io.WriteString(w, `ok`)
			},
			want: []string{"envelope:", "Content-Type"},
		},
		{
			name: "an error with a blank message", method: "GET", path: "/api/v1/user/model/7",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				_, _ = io.WriteString(w, `{"status":"error","message":" "}`)
			},
			want: []string{"blank message"},
		},
		{
			name: "the contract served as JSON", method: "GET", path: "/openapi.yaml",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{}`)
			},
			want: []string{"want text/yaml"},
		},
		{
			name: "stream without [DONE]", method: "POST", path: "/api/v1/user/inference",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "data: {\"type\":\"token\",\"content\":\"x\"}\n\n")
			},
			want: []string{"without data: [DONE]"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { tc.serve(w) }))
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			_ = hs.Listener.Close()
			hs.Listener = ln
			hs.Start()
			defer hs.Close()
			rep := &fakeReporter{}
			c := &apiClient{t: t, base: hs.URL, key: testKey1, http: &http.Client{Transport: newContractTransport(rep, hs.Client().Transport)}}
			c.do(tc.method, tc.path)
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
