package mockserver

// This file holds the test harness every other test of the package goes
// through: a mock on 127.0.0.1 driven by a FakeClock, and a client whose
// transport checks EVERY answer against the contract (spec.Strict) before a
// test sees it. A mock that drifts from the spec fails whichever test made
// the drifting request, with spec.Describe's readable lines.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/fixtures"
	"contractkit/mockserver/lifecycle"
	"contractkit/spec"
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

// reporter is the part of testing.TB the transport needs; a fake one lets
// the harness test itself.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// contractTransport checks every answer: status, headers and body against
// spec.Strict for operations of the contract, the seed's envelope and its
// Content-Type for every JSON answer, and each event of a 2xx event stream
// against the InferenceChunk schema, ending in [DONE].
type contractTransport struct {
	rep      reporter
	base     http.RoundTripper
	contract *spec.Contract
	chunk    *openapi3.Schema
}

func newContractTransport(rep reporter, base http.RoundTripper) *contractTransport {
	c := spec.Strict()
	ref := c.Kin.Components.Schemas["InferenceChunk"]
	if ref == nil || ref.Value == nil {
		panic("contract has no InferenceChunk schema")
	}
	return &contractTransport{rep: rep, base: base, contract: c, chunk: ref.Value}
}

func (ct *contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := ct.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 && mediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		resp.Body = &sseChecker{ct: ct, req: req, resp: resp, r: resp.Body}
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the answer to %s %s: %w", req.Method, req.URL.Path, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	ct.check(req, resp, body)
	return resp, nil
}

func where(req *http.Request) string { return req.Method + " " + req.URL.RequestURI() }

func snippet(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// inContract reports whether req addresses an operation of the contract
// (admin, /healthz, /openapi.yaml, unknown paths and wrong methods do not).
func (ct *contractTransport) inContract(req *http.Request) bool {
	if !strings.HasPrefix(req.URL.Path, "/api/v1/") {
		return false
	}
	_, _, _, ok := ct.contract.Find(bare(req))
	return ok
}

// bare is req without its body and host, as the validator needs it.
func bare(req *http.Request) *http.Request {
	r := req.Clone(context.Background())
	r.Body, r.GetBody, r.ContentLength = http.NoBody, nil, 0
	return r
}

func (ct *contractTransport) check(req *http.Request, resp *http.Response, body []byte) {
	ct.rep.Helper()
	ct.checkEnvelope(req, resp, body)
	if ct.inContract(req) {
		ct.validate(req, resp, body)
	}
}

// validate runs libopenapi-validator over the whole answer.
func (ct *contractTransport) validate(req *http.Request, resp *http.Response, body []byte) {
	ct.rep.Helper()
	r := *resp
	r.Body = io.NopCloser(bytes.NewReader(body))
	if ok, errs := ct.contract.Validator.ValidateHttpResponse(bare(req), &r); !ok {
		lines := spec.Describe(errs)
		if len(lines) == 0 {
			lines = []string{"(no detail)"}
		}
		ct.rep.Errorf("contract: %s → %d does not match spec.Strict:\n\t%s\n\tbody: %s",
			where(req), resp.StatusCode, strings.Join(lines, "\n\t"), snippet(body))
	}
}

// checkEnvelope applies the seed's envelope rules (§1) to a non-stream answer.
func (ct *contractTransport) checkEnvelope(req *http.Request, resp *http.Response, body []byte) {
	ct.rep.Helper()
	w := where(req)
	switch {
	case req.Method == http.MethodHead:
		return
	case req.URL.Path == "/openapi.yaml" && resp.StatusCode == http.StatusOK:
		if got := mediaType(resp.Header.Get("Content-Type")); got != "text/yaml" {
			ct.rep.Errorf("envelope: %s: Content-Type %q, want text/yaml (shown by a browser)", w, got)
		}
		return
	case resp.StatusCode == http.StatusNoContent:
		if len(body) != 0 {
			ct.rep.Errorf("envelope: %s → 204 with a body: %s", w, snippet(body))
		}
		return
	}
	if got := resp.Header.Get("Content-Type"); mediaType(got) != "application/json" {
		ct.rep.Errorf("envelope: %s → %d: Content-Type %q, want application/json; body: %s", w, resp.StatusCode, got, snippet(body))
		return
	}
	var env map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&env); err != nil || dec.More() || env == nil {
		ct.rep.Errorf("envelope: %s → %d: body is not one JSON object: %s", w, resp.StatusCode, snippet(body))
		return
	}
	var status string
	_ = json.Unmarshal(env["status"], &status)
	switch status {
	case "success":
		if resp.StatusCode/100 != 2 {
			ct.rep.Errorf("envelope: %s → %d: a success envelope with an error status", w, resp.StatusCode)
		}
		if _, ok := env["data"]; !ok {
			ct.rep.Errorf("envelope: %s → %d: success envelope without data: %s", w, resp.StatusCode, snippet(body))
		}
	case "error":
		var msg string
		if err := json.Unmarshal(env["message"], &msg); err != nil || strings.TrimSpace(msg) == "" {
			ct.rep.Errorf("envelope: %s → %d: error envelope without a message string: %s", w, resp.StatusCode, snippet(body))
		}
		if resp.StatusCode < 400 {
			ct.rep.Errorf("envelope: %s → %d: an error envelope with a success status", w, resp.StatusCode)
		}
	default:
		ct.rep.Errorf("envelope: %s → %d: status is %s, want \"success\" or \"error\": %s", w, resp.StatusCode, env["status"], snippet(body))
	}
}

// sseChecker checks an event stream as the test reads it, so a test can
// stop early (a disconnect) or read a stream that never ends (a stall):
// every complete event is checked when it arrives; at the end of the stream
// the whole answer goes through the validator and must have ended with
// [DONE] — unless the request asked for a stall or a cut.
type sseChecker struct {
	ct   *contractTransport
	req  *http.Request
	resp *http.Response
	r    io.ReadCloser

	mu      sync.Mutex // guards the fields below (Read and Close may race)
	all     bytes.Buffer
	pending []byte
	done    bool
	ended   bool
}

func (s *sseChecker) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > 0 {
		s.all.Write(p[:n])
		s.pending = append(s.pending, p[:n]...)
		s.events()
	}
	if errors.Is(err, io.EOF) && !s.ended {
		s.ended = true
		s.finish()
	}
	return n, err
}

func (s *sseChecker) Close() error { return s.r.Close() }

// events checks every complete event in pending.
func (s *sseChecker) events() {
	for range len(s.pending)/2 + 1 { // each round consumes at least 2 bytes
		i := bytes.Index(s.pending, []byte("\n\n"))
		if i < 0 {
			return
		}
		ev := string(s.pending[:i])
		s.pending = s.pending[i+2:]
		var data []string
		for _, line := range strings.Split(ev, "\n") {
			switch {
			case line == "" || strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "data:"):
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			case strings.HasPrefix(line, "event:"), strings.HasPrefix(line, "id:"), strings.HasPrefix(line, "retry:"):
			default:
				s.ct.rep.Errorf("stream: %s: a line that is no SSE field: %q", where(s.req), line)
			}
		}
		if len(data) == 0 {
			continue
		}
		s.event(strings.Join(data, "\n"))
	}
}

func (s *sseChecker) event(data string) {
	w := where(s.req)
	if s.done {
		s.ct.rep.Errorf("stream: %s: event after [DONE]: %s", w, data)
		return
	}
	if data == "[DONE]" {
		s.done = true
		return
	}
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		s.ct.rep.Errorf("stream: %s: data is neither JSON nor [DONE]: %q", w, data)
		return
	}
	if err := s.ct.chunk.VisitJSON(v); err != nil {
		s.ct.rep.Errorf("stream: %s: chunk does not match InferenceChunk: %s\n\tchunk: %s", w, schemaProblem(err), data)
	}
}

// schemaProblem is a kin-openapi schema error as one "field: rule" line,
// without the schema dump.
func schemaProblem(err error) string {
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		field := strings.Join(se.JSONPointer(), ".")
		if field == "" {
			field = "chunk"
		}
		return field + ": " + se.Reason
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

func (s *sseChecker) finish() {
	w := where(s.req)
	if len(bytes.TrimSpace(s.pending)) > 0 {
		s.ct.rep.Errorf("stream: %s: ends inside an event: %q", w, s.pending)
	}
	fault := strings.ToLower(s.req.Header.Get("X-Mock-Stream-Fault"))
	if fault == "" { // an override injected it: the answer names it
		fault = strings.ToLower(s.resp.Header.Get("X-Mock-Stream-Fault"))
	}
	if !s.done && fault != faultCut && fault != faultStall {
		s.ct.rep.Errorf("stream: %s: ended without data: [DONE]", w)
	}
	s.ct.validate(s.req, s.resp, s.all.Bytes())
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

// TestHarnessCatchesDrift proves the transport is not a rubber stamp: an
// answer that breaks the contract, the envelope or the stream rules is
// reported, with readable lines.
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
			want: []string{"contract:", "id"},
		},
		{
			name: "undocumented status", method: "GET", path: "/api/v1/user/model/7",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTeapot)
				_, _ = io.WriteString(w, `{"status":"error","message":"teapot"}`)
			},
			want: []string{"contract:", "418"},
		},
		{
			name: "wrong content type", method: "GET", path: "/healthz",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/plain")
				_, _ = io.WriteString(w, `ok`)
			},
			want: []string{"envelope:", "Content-Type"},
		},
		{
			name: "error without message", method: "GET", path: "/admin/state",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				_, _ = io.WriteString(w, `{"status":"error"}`)
			},
			want: []string{"without a message"},
		},
		{
			name: "stream chunk of an unknown type", method: "POST", path: "/api/v1/user/inference",
			serve: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "data: {\"type\":\"weird\"}\n\ndata: [DONE]\n\n")
			},
			want: []string{"InferenceChunk"},
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
