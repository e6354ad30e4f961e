package fieldindex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/conformance/client"
	"contractkit/conformance/explore"
	"contractkit/conformance/refmodel"
	"contractkit/conformance/refmodel/drive"
	"contractkit/exchange"
	"contractkit/fixtures"
	"contractkit/judge"
	"contractkit/mockserver"
	"contractkit/mockserver/lifecycle"
)

// The mock's side: what it serves in a realistic run. The reference
// model's driver (conformance/refmodel/drive) runs the in-process mock
// through its whole sequence — every operation as it should succeed, each
// fault a client can give it, each state of each resource an operation
// reads or writes (the mock's fake clock moved, never slept on: a trained
// model's metrics, a finished evaluation's results), then seeded random
// steps — and every answer is kept. A stream the mock breaks on request
// (X-Mock-Stream-Fault: error, the console's "error mid-stream") is asked
// for once more, since no client's mistake provokes it.

const (
	keyA = "fieldindex-key-a"
	keyB = "fieldindex-key-b"
	// trainFor and evalFor are the mock's durations on its fake clock.
	trainFor = 10 * time.Second
	evalFor  = 5 * time.Second
	// uploadLimit is the mock's multipart limit, small so that a 413 is
	// cheap to provoke.
	uploadLimit = 256 << 10
	// steps are the random steps after the driver's coverage phases.
	steps = 60
)

// reply is one answer the mock gave: its operation and status, and its
// JSON values (a body's, or each chunk's of an event stream).
type reply struct {
	op     string
	status int
	stream bool
	values []any
}

// newReply reads an answer's body as its content type says.
func newReply(op string, status int, contentType string, body []byte) reply {
	r := reply{op: op, status: status, stream: strings.HasPrefix(contentType, "text/event-stream")}
	switch {
	case r.stream:
		judge.ReadEvents(bytes.NewReader(body), func(ev judge.Event) bool {
			if v, ok := decode([]byte(ev.Data)); ok {
				r.values = append(r.values, v)
			}
			return true
		})
	case strings.HasPrefix(contentType, "application/json"):
		if v, ok := decode(body); ok {
			r.values = append(r.values, v)
		}
	}
	return r
}

// host is the driver's host: a client of the in-process mock.
type host struct{ c *client.Client }

func (h host) Client() *client.Client  { return h.c }
func (host) Shared() map[string]string { return nil }
func (h host) Remove(ctx context.Context, path string) {
	h.c.Do(ctx, client.Request{Method: http.MethodDelete, Path: path})
}

// mockRun is the run, made once for the package's tests.
var mockRun = sync.OnceValues(runMock)

// run is what the mock answered, and what the driver did not reach.
type run struct {
	answers []reply
	misses  []string
}

// runMock drives a fresh mock with both keys and the default fixtures
// and returns every answer it gave.
func runMock() (run, error) {
	clock := lifecycle.NewFakeClock(time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC))
	fx := fixtures.Default()
	srv, err := mockserver.New(mockserver.Config{Keys: []string{keyA, keyB}, Seed: 7, Clock: clock, Fixtures: &fx,
		TrainDuration: trainFor, EvalDuration: evalFor, MaxUploadBytes: uploadLimit})
	if err != nil {
		return run{}, err
	}
	ts := httptest.NewServer(srv)
	defer func() { srv.Shutdown(); ts.Close() }()
	u, err := url.Parse(ts.URL)
	if err != nil {
		return run{}, err
	}
	var (
		mu  sync.Mutex
		out []reply
	)
	keep := func(op string, status int, contentType string, body []byte) {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, newReply(op, status, contentType, body))
	}
	h := host{c: client.New(u, keyA, keyB, 20*time.Second)}
	r := drive.Drive(context.Background(), explore.ModelSender(h, nil), drive.Config{Seed: 1, Steps: steps, Clock: clock,
		Train: trainFor, Eval: evalFor, UploadLimit: uploadLimit,
		After: func(_ int, c refmodel.Call, a refmodel.Answer) {
			if x, ok := a.Note.(*exchange.Exchange); ok && a.Status != 0 {
				keep(c.Op, a.Status, a.Header.Get("Content-Type"), x.Raw)
			}
		}})
	misses := r.Misses()
	for _, f := range r.Found {
		misses = append(misses, "the model found: "+f.Finding.String())
	}
	more, err := frontend(ts.URL)
	if err != nil {
		return run{}, err
	}
	out = append(out, more...)
	return run{answers: out, misses: misses}, nil
}

// frontend makes the calls of a frontend the driver's sequence does not
// make, on the first ready model of the first account: a conversation
// continued with one JSON answer (D-04), whose answer names the
// conversation; and a stream the mock breaks on request (X-Mock-Stream-Fault:
// error), whose error chunk says what failed.
func frontend(base string) ([]reply, error) {
	var out []reply
	call := func(op, method, path, body string, header ...string) (any, error) {
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+keyA)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return nil, err
		}
		out = append(out, newReply(op, resp.StatusCode, resp.Header.Get("Content-Type"), raw))
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		v, _ := decode(raw)
		return v, nil
	}
	list, err := call("listModels", http.MethodGet, "/api/v1/user/model", "")
	if err != nil {
		return nil, err
	}
	var model json.Number
	models, _ := dig(list, "data").([]any)
	for _, m := range models {
		if dig(m, "status") == "ready" {
			model, _ = dig(m, "id").(json.Number)
			break
		}
	}
	if model == "" {
		return nil, fmt.Errorf("the fixtures have no ready model")
	}
	conv, err := call("createConversation", http.MethodPost, "/api/v1/user/conversations", `{"model_id":`+model.String()+`,"title":"Leave policy"}`)
	if err != nil {
		return nil, err
	}
	id, _ := dig(dig(conv, "data"), "id").(string)
	if _, err := call("runInference", http.MethodPost, "/api/v1/user/inference",
		`{"query":"How many days of leave?","model_id":`+model.String()+`,"conversation_id":`+strconv.Quote(id)+`}`,
		"Accept", "application/json"); err != nil {
		return nil, err
	}
	if _, err := call("runInference", http.MethodPost, "/api/v1/user/inference",
		`{"query":"What is in the handbook?","model_id":`+model.String()+`}`,
		"Accept", "text/event-stream", "X-Mock-Stream-Fault", "error"); err != nil {
		return nil, err
	}
	return out, nil
}

// dig is v's member name when v is an object, nil otherwise.
func dig(v any, name string) any {
	m, _ := v.(map[string]any)
	return m[name]
}

// servedFields returns the pointers (as answerFields names them) of the
// fields present in at least one answer the mock gave, against the
// contract doc. A field present with null is served: a client reading the
// answer meets it, with a value the contract allows.
func servedFields(t *testing.T, doc *openapi3.T) map[string]bool {
	t.Helper()
	r, err := mockRun()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.misses {
		t.Errorf("the run did not reach what it covers: %s", m)
	}
	docs, statuses := map[string][]answer{}, map[string][]string{}
	for _, a := range answersOf(doc) {
		key := a.op + " " + a.status
		if docs[key] == nil {
			statuses[a.op] = append(statuses[a.op], a.status)
		}
		docs[key] = append(docs[key], a)
	}
	out := map[string]bool{}
	for _, s := range r.answers {
		for _, a := range docs[s.op+" "+documented(statuses[s.op], s.status)] {
			if a.stream == s.stream {
				for _, v := range s.values {
					present(a.schema, a.ptr, v, out)
				}
			}
		}
	}
	return out
}

// documented is the documented code (of codes, an operation's) an answer
// of status falls under: the code itself, its range ("4XX"), or "default".
func documented(codes []string, status int) string {
	code := strconv.Itoa(status)
	for _, want := range []string{code, code[:1] + "XX", "default"} {
		for _, s := range codes {
			if strings.EqualFold(s, want) {
				return s
			}
		}
	}
	return ""
}

func decode(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	return v, dec.Decode(&v) == nil
}

// present walks the value v against the schema ref written at ptr, as
// answerFields walks the schema, and adds the pointer of every property v
// holds to out. A union's branch is the one its discriminator names when
// v carries it; otherwise every branch is walked.
func present(ref *openapi3.SchemaRef, ptr string, v any, out map[string]bool) {
	s, ptr, member, memberAt := resolved(ref, ptr)
	if s == nil {
		return
	}
	if member != nil {
		present(member, memberAt, v, out)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for name, p := range s.Properties {
			if sub, ok := v[name]; ok {
				_, at, _, _ := resolved(p, ptr+"/properties/"+escape(name))
				out[at] = true
				present(p, ptr+"/properties/"+escape(name), sub, out)
			}
		}
		refs, at := alternatives(s, ptr)
		for i, b := range refs {
			if s.Discriminator != nil {
				if kind, ok := v[s.Discriminator.PropertyName].(string); ok && s.Discriminator.Mapping[kind].Ref != b.Ref {
					continue
				}
			}
			present(b, at[i], v, out)
		}
	case []any:
		if s.Items != nil {
			for _, item := range v {
				present(s.Items, ptr+"/items", item, out)
			}
		}
	}
}
