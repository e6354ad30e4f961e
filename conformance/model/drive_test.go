package model_test

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
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"contractkit/conformance/judge"
	"contractkit/conformance/model"
	"contractkit/fixtures"
	"contractkit/mockserver"
	"contractkit/mockserver/lifecycle"
	"contractkit/spec"
)

// The test's driver: it sends model.Calls to a server over HTTP, reads the
// answers back into model.Answers (an event stream joined as a client
// does), and has the model judge each one.

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

// step is one call and what came of it, for a failure's report.
type step struct {
	call    model.Call
	status  int
	verdict model.Verdict
}

// driver sends calls and collects the model's findings.
type driver struct {
	t testing.TB
	m *model.Model
	// shadow, when set, is a model that does not know when the server's
	// clock moves (as the explore phase does not): it observes the same
	// exchanges, and only its timing findings are allowed.
	shadow *model.Model
	// firm are the shadow's findings that are not timing ones.
	firm   []found
	timing int
	srv    server
	client *http.Client
	ops    map[string]spec.Operation
	steps  []step
	// cover counts the statuses each operation got; toured the states of
	// the resource each operation of the tour met.
	cover  map[string]map[int]int
	toured map[string]map[string]int
	// found are the findings, with the step that made each.
	found []found
}

type found struct {
	step int
	f    judge.Finding
}

func newDriver(t testing.TB, srv server) *driver {
	d := &driver{t: t, m: model.New(model.Config{Frozen: true}), srv: srv,
		client: &http.Client{Timeout: 20 * time.Second}, ops: map[string]spec.Operation{}, cover: map[string]map[int]int{}, toured: map[string]map[string]int{}}
	for _, op := range spec.Strict().Operations {
		d.ops[op.ID] = op
	}
	return d
}

// advance moves the server's clock and tells the model.
func (d *driver) advance(by time.Duration) {
	d.srv.clock.Advance(by)
	d.m.Advance()
}

// do sends c, has the model judge the answer, and returns it.
func (d *driver) do(c model.Call) model.Answer {
	d.t.Helper()
	a := d.send(c)
	v := d.m.Observe(c, a)
	d.steps = append(d.steps, step{call: c, status: a.Status, verdict: v})
	if d.shadow != nil {
		sv := d.shadow.Observe(c, a)
		for _, f := range sv.Findings {
			d.firm = append(d.firm, found{len(d.steps) - 1, f})
		}
		d.timing += len(sv.Timing)
	}
	if d.cover[c.Op] == nil {
		d.cover[c.Op] = map[int]int{}
	}
	d.cover[c.Op][a.Status]++
	for _, f := range append(v.Findings, v.Timing...) {
		d.found = append(d.found, found{len(d.steps) - 1, f})
	}
	if trace := os.Getenv("MODEL_TRACE"); trace != "" && (trace == "all" || strings.Contains(","+trace+",", ","+c.Op+",")) {
		d.t.Logf("#%d %s %s expect %+v", len(d.steps)-1, describe(c, a.Status), v.Findings, d.m.Expect(c))
	}
	return a
}

// send performs the call over HTTP.
func (d *driver) send(c model.Call) model.Answer {
	d.t.Helper()
	op, ok := d.ops[c.Op]
	if !ok {
		d.t.Fatalf("no operation %s", c.Op)
	}
	path := op.Path
	for k, v := range c.Path {
		path = strings.ReplaceAll(path, "{"+k+"}", url.PathEscape(v))
	}
	var body io.Reader
	ctype := c.ContentType
	switch {
	case c.Raw != nil:
		body = bytes.NewReader(c.Raw)
	case c.Form != nil:
		b, ct := encodeForm(d.t, c.Form)
		body, ctype = bytes.NewReader(b), ct
	case c.Body != nil:
		b, err := json.Marshal(c.Body)
		if err != nil {
			d.t.Fatal(err)
		}
		body, ctype = bytes.NewReader(b), "application/json"
	}
	u := d.srv.url + path
	if len(c.Query) > 0 {
		u += "?" + c.Query.Encode()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, strings.ToUpper(op.Method), u, body)
	if err != nil {
		d.t.Fatal(err)
	}
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	if c.Accept != "" {
		r.Header.Set("Accept", c.Accept)
	}
	switch c.Key {
	case model.KeyA:
		r.Header.Set("Authorization", "Bearer "+keyA)
	case model.KeyB:
		r.Header.Set("Authorization", "Bearer "+keyB)
	case model.KeyBad:
		r.Header.Set("Authorization", "Bearer "+model.NearKey(keyA))
	}
	resp, err := d.client.Do(r)
	if err != nil {
		return model.Answer{}
	}
	defer resp.Body.Close()
	a := model.Answer{Status: resp.StatusCode, Header: resp.Header}
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
func readStream(r io.Reader) *model.Stream {
	s := &model.Stream{}
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

func encodeForm(t testing.TB, f *model.Form) ([]byte, string) {
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

// report renders the findings with the steps that led to each.
func (d *driver) report() string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, f := range d.found {
		if seen[f.f.Key()] {
			continue
		}
		seen[f.f.Key()] = true
		fmt.Fprintf(&b, "\n%s %s: %s (%s)\n  after:", f.f.Operation, f.f.Pointer, f.f.String(), f.f.Class)
		from := max(0, f.step-6)
		for i := from; i <= f.step; i++ {
			s := d.steps[i]
			fmt.Fprintf(&b, "\n    #%d %s", i, describe(s.call, s.status))
		}
	}
	return b.String()
}

// describe renders a call on one line.
func describe(c model.Call, status int) string {
	var parts []string
	for k, v := range c.Path {
		parts = append(parts, k+"="+v)
	}
	if len(c.Query) > 0 {
		parts = append(parts, "?"+c.Query.Encode())
	}
	if c.Body != nil {
		b, _ := json.Marshal(c.Body)
		s := string(b)
		if len(s) > 160 {
			s = s[:160] + "…"
		}
		parts = append(parts, s)
	}
	if c.Form != nil {
		parts = append(parts, fmt.Sprintf("form %v + %d files", c.Form.Fields, len(c.Form.Files)))
	}
	if c.Raw != nil {
		parts = append(parts, fmt.Sprintf("raw %d bytes", len(c.Raw)))
	}
	key := map[model.Key]string{model.KeyA: "A", model.KeyB: "B", model.KeyBad: "bad", model.KeyNone: "none"}[c.Key]
	return fmt.Sprintf("%s [%s] %s → %d", c.Op, key, strings.Join(parts, " "), status)
}
