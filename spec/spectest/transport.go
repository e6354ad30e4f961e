package spectest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/internal/textcut"
	"contractkit/spec"
)

// Reporter is the part of testing.TB the Transport reports through: every
// *testing.T, *testing.B and *testing.F is one. A report does not stop the
// test (Errorf, not Fatalf): the answer still reaches it.
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// DefaultMaxBody bounds what a Transport reads of one answer to judge it.
const DefaultMaxBody = 32 << 20

// Transport is an http.RoundTripper that judges every answer against the
// contract before the test reads it. Create it with NewTransport; set its
// fields before its first request. It is safe for concurrent use.
type Transport struct {
	// Base sends the requests.
	Base http.RoundTripper
	// Contract is the view answers are held to: the document as written
	// (spec.Strict) unless set; spec.Declared holds a server to the seed's
	// rules only.
	Contract *spec.Contract
	// Envelope, when set, reports whether the answer to a request outside
	// the contract's paths must be the seed's envelope too: a server's own
	// endpoints that promise it (the mock's /admin controls).
	Envelope func(*http.Request) bool
	// Undocumented, when set, reports whether the answer to req may carry a
	// status its operation does not document (a test that forces one); such
	// an answer is held to the envelope and to the schema of the operation's
	// documented errors, not reported as undocumented.
	Undocumented func(req *http.Request, status int) bool
	// MaxBody bounds what is read of one answer to judge it (0:
	// DefaultMaxBody). A larger answer is passed on unjudged, and reported.
	MaxBody int64

	rep    Reporter
	once   sync.Once
	prefix string // the contract's common path prefix, "/api/v1/"
}

// NewTransport returns a Transport that sends through base (nil:
// http.DefaultTransport) and reports every answer that breaks the contract
// to rep, normally the test's *testing.T.
func NewTransport(rep Reporter, base http.RoundTripper) *Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &Transport{Base: base, rep: rep}
}

// NewClient returns an http.Client whose Transport is NewTransport(rep, base).
func NewClient(rep Reporter, base http.RoundTripper) *http.Client {
	return &http.Client{Transport: NewTransport(rep, base)}
}

// CloseIdleConnections closes the idle connections of Base, when it keeps any.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.Base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *Transport) init() {
	t.once.Do(func() {
		if t.Contract == nil {
			t.Contract = spec.Strict()
		}
		var paths []string
		for _, op := range t.Contract.Operations {
			paths = append(paths, op.Path)
		}
		t.prefix = commonPrefix(paths)
	})
}

// commonPrefix is the longest prefix every path shares, up to a slash.
func commonPrefix(paths []string) string {
	if len(paths) == 0 {
		return "/"
	}
	p := paths[0]
	for _, q := range paths[1:] {
		for !strings.HasPrefix(q, p) {
			p = p[:len(p)-1]
		}
	}
	return p[:strings.LastIndex(p, "/")+1]
}

// exchange is one request and what the contract says of it.
type exchange struct {
	req *http.Request
	op  *openapi3.Operation // nil outside the contract's operations
	// envelope: the answer must be the seed's envelope (§1).
	envelope bool
}

// where names an exchange in a report: its operation, method and target.
func (x *exchange) where() string {
	w := x.req.Method + " " + x.req.URL.RequestURI()
	if x.op != nil {
		return x.op.OperationID + " (" + w + ")"
	}
	return w
}

// RoundTrip sends req through Base and judges the answer.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.init()
	resp, err := t.Base.RoundTrip(req)
	if err != nil || req.Method == http.MethodHead {
		return resp, err
	}
	x := &exchange{req: req}
	if strings.HasPrefix(req.URL.Path, t.prefix) {
		x.envelope = true
		if op, _, _, ok := t.Contract.Find(bare(req)); ok {
			x.op = op
		}
	} else if t.Envelope != nil {
		x.envelope = t.Envelope(req)
	}
	if !x.envelope && x.op == nil {
		return resp, nil
	}
	if x.op != nil && resp.StatusCode/100 == 2 && mediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		resp.Body = t.newStream(x, resp)
		return resp, nil
	}
	limit := t.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("spectest: reading the answer to %s: %w", x.where(), err)
	}
	if int64(len(body)) > limit {
		t.rep.Errorf("spectest: %s → %d: an answer over %d bytes, not judged (raise Transport.MaxBody)", x.where(), resp.StatusCode, limit)
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		return resp, nil
	}
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	t.judge(x, resp, body)
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// judge applies the envelope rules and, for an operation of the contract,
// the contract's response to a whole answer.
func (t *Transport) judge(x *exchange, resp *http.Response, body []byte) {
	t.rep.Helper()
	if x.envelope {
		for _, p := range envelopeProblems(resp, body) {
			t.rep.Errorf("spectest: envelope: %s → %d: %s; body: %s", x.where(), resp.StatusCode, p, snippet(body))
		}
	}
	if x.op == nil {
		return
	}
	if t.Undocumented != nil && x.op.Responses.Status(resp.StatusCode) == nil && x.op.Responses.Default() == nil &&
		t.Undocumented(x.req, resp.StatusCode) {
		t.judgeUndocumented(x, resp, body)
		return
	}
	t.validate(x, resp, body)
}

// validate runs libopenapi-validator over the whole answer.
func (t *Transport) validate(x *exchange, resp *http.Response, body []byte) {
	t.rep.Helper()
	r := *resp
	r.Body = io.NopCloser(bytes.NewReader(body))
	if ok, errs := t.Contract.Validator.ValidateHttpResponse(bare(x.req), &r); !ok {
		lines := spec.Describe(errs)
		if len(lines) == 0 {
			lines = []string{"(no detail)"}
		}
		t.rep.Errorf("spectest: contract: %s → %d does not match the contract:\n\t%s\n\tbody: %s",
			x.where(), resp.StatusCode, strings.Join(lines, "\n\t"), snippet(body))
	}
}

// judgeUndocumented holds an answer with a status its operation does not
// document to the schema of the operation's documented JSON errors.
func (t *Transport) judgeUndocumented(x *exchange, resp *http.Response, body []byte) {
	t.rep.Helper()
	var codes []string
	for code := range x.op.Responses.Map() {
		if n, err := strconv.Atoi(code); err == nil && n >= 400 {
			codes = append(codes, code)
		}
	}
	slices.Sort(codes)
	for _, code := range codes {
		mt := x.op.Responses.Value(code).Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return // the envelope check reported it
		}
		if err := mt.Schema.Value.VisitJSON(v); err != nil {
			t.rep.Errorf("spectest: contract: %s → %d (not documented): does not match the schema of its documented error %s: %s; body: %s",
				x.where(), resp.StatusCode, code, schemaProblem(err), snippet(body))
		}
		return
	}
}

// bare is req without its body, as the validator needs it.
func bare(req *http.Request) *http.Request {
	r := req.Clone(context.Background())
	r.Body, r.GetBody, r.ContentLength = http.NoBody, nil, 0
	return r
}

func snippet(b []byte) string { return textcut.Shorten(string(b), 600) }

// mediaType is a Content-Type without its parameters, lower-cased.
func mediaType(h string) string {
	mt, _, err := mime.ParseMediaType(h)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(h))
	}
	return mt
}
