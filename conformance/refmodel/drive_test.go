package refmodel_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"contractkit/conformance/client"
	"contractkit/conformance/refmodel"
	"contractkit/conformance/refmodel/drive"
	"contractkit/fixtures"
	"contractkit/judge"
	"contractkit/mockserver"
	"contractkit/mockserver/lifecycle"
	"contractkit/spec"
)

// The tests' sender: it sends model.Calls to a server over HTTP and reads
// the answers back into model.Answers (an event stream joined as a client
// does); package drive generates the calls and has the model judge them.

const (
	keyA = "model-test-key-a"
	keyB = "model-test-key-b"
	// trainFor and evalFor are the mock's durations on its fake clock.
	trainFor = 10 * time.Second
	evalFor  = 5 * time.Second
	// uploadLimit is the mock's multipart limit, small so that a 413 is
	// cheap to provoke.
	uploadLimit = 256 << 10
)

var epoch = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// server is a mock (or a mutant of it) on 127.0.0.1 and its clock.
type server struct {
	url   string
	clock *lifecycle.FakeClock
}

// startMock serves a fresh mock with both keys and the default fixtures,
// wrapped by wrap (nil: none); tune (nil: none) changes its config.
func startMock(t testing.TB, wrap func(http.Handler) http.Handler, tune ...func(*mockserver.Config)) server {
	t.Helper()
	clock := lifecycle.NewFakeClock(epoch)
	fx := fixtures.Default()
	cfg := mockserver.Config{Keys: []string{keyA, keyB}, Seed: 7, Clock: clock, Fixtures: &fx,
		TrainDuration: trainFor, EvalDuration: evalFor, MaxUploadBytes: uploadLimit}
	for _, f := range tune {
		f(&cfg)
	}
	srv, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { srv.Shutdown(); ts.Close() })
	return server{url: ts.URL, clock: clock}
}

// httpSender sends the driver's calls to a server over HTTP, with the
// test's two keys.
type httpSender struct {
	t      testing.TB
	url    string
	client *http.Client
	ops    map[string]spec.Operation
}

func newSender(t testing.TB, srv server) httpSender {
	h := httpSender{t: t, url: srv.url, client: &http.Client{Timeout: 20 * time.Second}, ops: map[string]spec.Operation{}}
	for _, op := range spec.Strict().Operations {
		h.ops[op.ID] = op
	}
	return h
}

// run drives a server through a whole sequence (package drive) with its
// fake clock, seed and n random steps; after, when set, sees each exchange.
func run(t testing.TB, srv server, seed uint64, n int, after ...func(int, refmodel.Call, refmodel.Answer)) *drive.Run {
	cfg := drive.Config{Seed: seed, Steps: n, Clock: srv.clock, Train: trainFor, Eval: evalFor, UploadLimit: uploadLimit}
	if len(after) > 0 {
		cfg.After = after[0]
	}
	return drive.Drive(context.Background(), newSender(t, srv), cfg)
}

// runUntil drives a server like run, without random steps, and ends at the
// first finding enough accepts (what it made is left: the server is the
// test's).
func runUntil(t testing.TB, srv server, enough func(judge.Finding) bool) *drive.Run {
	cfg := drive.Config{Seed: 1, Clock: srv.clock, Train: trainFor, Eval: evalFor, UploadLimit: uploadLimit, Enough: enough, Keep: true}
	return drive.Drive(context.Background(), newSender(t, srv), cfg)
}

// Send performs the call over HTTP.
func (h httpSender) Send(ctx context.Context, c refmodel.Call) refmodel.Answer {
	h.t.Helper()
	op, ok := h.ops[c.Op]
	if !ok {
		h.t.Fatalf("no operation %s", c.Op)
	}
	path := c.PathOf(op.Path)
	var body io.Reader
	ctype := c.ContentType
	switch {
	case c.Raw != nil:
		body = bytes.NewReader(c.Raw)
	case c.Form != nil:
		b, ct := encodeForm(h.t, c.Form)
		body, ctype = bytes.NewReader(b), ct
	case c.Body != nil:
		b, err := json.Marshal(c.Body)
		if err != nil {
			h.t.Fatal(err)
		}
		body = bytes.NewReader(b)
		if ctype == "" {
			ctype = "application/json"
		}
	}
	u := h.url + path
	if len(c.Query) > 0 {
		u += "?" + c.RawQuery()
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, strings.ToUpper(op.Method), u, body)
	if err != nil {
		h.t.Fatal(err)
	}
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	if body != nil && c.Wire.Chunked {
		// A body of unknown length goes out chunked.
		r.Body, r.ContentLength, r.GetBody = io.NopCloser(body), -1, nil
	}
	if body != nil && c.Wire.Continue {
		r.Header.Set("Expect", "100-continue") // the transport waits for the 100 (ExpectContinueTimeout)
	}
	if c.Accept != "" {
		r.Header.Set("Accept", c.Accept)
	}
	switch c.Key {
	case refmodel.KeyA:
		r.Header.Set("Authorization", "Bearer "+keyA)
	case refmodel.KeyB:
		r.Header.Set("Authorization", "Bearer "+keyB)
	case refmodel.KeyBad:
		near := client.NearKeys(keyA)
		r.Header.Set("Authorization", "Bearer "+near[c.Near%len(near)])
	}
	resp, err := h.client.Do(r)
	if err != nil {
		return refmodel.Answer{}
	}
	defer resp.Body.Close()
	a := refmodel.Answer{Status: resp.StatusCode, Header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		a.Stream = readStream(resp.Body)
		return a
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		a.Cut = true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
		a.Body = v
	}
	return a
}

// readStream joins an event stream as a client does (D-03).
func readStream(r io.Reader) *refmodel.Stream {
	s := &refmodel.Stream{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var text strings.Builder
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		line = strings.TrimSpace(line)
		if line == "[DONE]" {
			s.Complete = true
			break
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var chunk map[string]any
		if dec.Decode(&chunk) != nil {
			s.NotJSON = append(s.NotJSON, line)
			continue
		}
		switch chunk["type"] {
		case "token", "delta":
			c, _ := chunk["content"].(string)
			text.WriteString(c)
		case "done":
			s.Done = chunk
			delete(s.Done, "type")
			delete(s.Done, "content")
		}
	}
	s.Text = text.String()
	return s
}

func encodeForm(t testing.TB, f *refmodel.Form) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	names := make([]string, 0, len(f.Fields))
	for k := range f.Fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range f.Fields[k] {
			if err := w.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, file := range f.Files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, file.Field, file.Name))
		h.Set("Content-Type", "application/octet-stream")
		p, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Write(file.Content); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), w.FormDataContentType()
}

// query builds a url.Values from pairs.
func query(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}
