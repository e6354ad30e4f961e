package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/fixtures"
)

func TestInferenceStreamShape(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("warranty", fixtureFile(t, "warranty-policy.pdf"))
	res := c.ask(map[string]any{"query": "What is the standard warranty period?", "model_id": m.ID, "thread_id": "thread-7"})

	if len(res.Chunks) < 3 || res.Chunks[0].Type != "status" {
		t.Fatalf("chunks got %+v, want a status chunk first", res.Chunks)
	}
	// status, optional context, tokens, done — in that order.
	order := map[string]int{"status": 0, "context": 1, "token": 2, "done": 3}
	last := -1
	for i, ch := range res.Chunks {
		o, ok := order[ch.Type]
		if !ok || o < last {
			t.Fatalf("chunk %d has type %q after %v: want status, context, token…, done", i, ch.Type, res.Chunks[max(i-1, 0)].Type)
		}
		last = o
	}
	if !res.DoneMarker {
		t.Error("stream did not end with [DONE]")
	}
	if res.count("done") != 1 || res.Final == nil {
		t.Fatalf("done chunks got %d, want 1", res.count("done"))
	}
	f := res.Final
	if f.TokensUsed == nil || *f.TokensUsed != res.Tokens {
		t.Errorf("tokens_used got %v, want %d (the token chunks)", f.TokensUsed, res.Tokens)
	}
	if f.ThreadID != "thread-7" {
		t.Errorf("thread_id got %q, want thread-7", f.ThreadID)
	}
	if f.LatencyMS == nil || *f.LatencyMS < 0 {
		t.Errorf("latency_ms got %v, want >= 0", f.LatencyMS)
	}
	if f.Metadata["grounded"] != true || fmt.Sprint(f.Metadata["model_id"]) != fmt.Sprint(m.ID) {
		t.Errorf("metadata got %v, want grounded true and model_id %d", f.Metadata, m.ID)
	}
	if res.count("context") != 1 {
		t.Errorf("context chunks got %d, want 1 for a grounded answer", res.count("context"))
	}
	if !strings.Contains(res.Text, "24 months") {
		t.Errorf("answer %q does not state the warranty period", res.Text)
	}

	t.Run("a thread id is generated when none is given", func(t *testing.T) {
		c := ts.client(t, c.key)
		res := c.ask(map[string]any{"query": "warranty", "model_id": m.ID})
		if res.Final == nil || res.Final.ThreadID == "" {
			t.Errorf("done chunk got %+v, want a thread_id", res.Final)
		}
	})
	t.Run("Accept text/event-stream and */* stream", func(t *testing.T) {
		c := ts.client(t, c.key)
		for _, a := range []string{"text/event-stream", "*/*", "application/json, text/event-stream"} {
			c.ask(map[string]any{"query": "warranty", "model_id": m.ID}, withHeader("Accept", a))
		}
	})
}

// TestInferenceAnswersFromTheFile asks every question of fixtures.Questions
// of a model trained on the question's file only.
func TestInferenceAnswersFromTheFile(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	models := map[string]int64{}
	for _, q := range fixtures.Questions() {
		t.Run(q.File+": "+q.Question, func(t *testing.T) {
			c := ts.client(t, c.key)
			id, ok := models[q.File]
			if !ok {
				id = c.readyModel("on "+q.File, fixtureFile(t, q.File)).ID
				models[q.File] = id
			}
			res := c.ask(map[string]any{"query": q.Question, "model_id": id})
			if !strings.Contains(res.Text, q.ExpectedFact) {
				t.Errorf("answer got %q, want it to contain %q", res.Text, q.ExpectedFact)
			}
			srcs, _ := res.Final.Metadata["sources"].([]any)
			if len(srcs) == 0 || fmt.Sprint(srcs[0]) != q.File {
				t.Errorf("sources got %v, want %s first", srcs, q.File)
			}
		})
	}
}

func TestInferenceOptions(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("handbook", fixtureFile(t, "employee-handbook.md"), fixtureFile(t, "warranty-policy.pdf"))
	q := "What does the handbook say about paid leave, working hours, remote work, expenses and hotel limits?"

	t.Run("max_tokens", func(t *testing.T) {
		c := ts.client(t, c.key)
		for _, n := range []int{1, 3, 7} {
			res := c.ask(map[string]any{"query": q, "model_id": m.ID, "max_tokens": n})
			if res.Tokens == 0 || res.Tokens > n || *res.Final.TokensUsed != res.Tokens {
				t.Errorf("max_tokens %d: token chunks got %d (tokens_used %d), want 1..%d", n, res.Tokens, *res.Final.TokensUsed, n)
			}
		}
		full := c.ask(map[string]any{"query": q, "model_id": m.ID, "response_length_preference": "detailed"})
		if full.Tokens <= 7 {
			t.Errorf("detailed answer has %d tokens, want more than 7 for the max_tokens check to mean anything", full.Tokens)
		}
	})
	t.Run("concise is shorter than detailed", func(t *testing.T) {
		c := ts.client(t, c.key)
		concise := c.ask(map[string]any{"query": q, "model_id": m.ID, "response_length_preference": "concise"})
		balanced := c.ask(map[string]any{"query": q, "model_id": m.ID, "response_length_preference": "balanced"})
		detailed := c.ask(map[string]any{"query": q, "model_id": m.ID, "response_length_preference": "detailed"})
		if !(len(concise.Text) < len(detailed.Text)) || len(balanced.Text) > len(detailed.Text) || len(concise.Text) > len(balanced.Text) {
			t.Errorf("lengths got concise %d, balanced %d, detailed %d; want concise < detailed, balanced in between",
				len(concise.Text), len(balanced.Text), len(detailed.Text))
		}
	})
	t.Run("base_model ignores the files", func(t *testing.T) {
		c := ts.client(t, c.key)
		grounded := c.ask(map[string]any{"query": "How many days of paid leave do employees receive per year?", "model_id": m.ID})
		base := c.ask(map[string]any{"query": "How many days of paid leave do employees receive per year?", "model_id": m.ID, "base_model": true})
		if !strings.Contains(grounded.Text, "27 days") {
			t.Fatalf("grounded answer %q lacks the fact", grounded.Text)
		}
		if strings.Contains(base.Text, "27 days") || base.count("context") != 0 {
			t.Errorf("base model answer %q (context chunks %d) uses the files", base.Text, base.count("context"))
		}
		if base.Final.Metadata["grounded"] != false || base.Final.Metadata["base_model"] != true {
			t.Errorf("base model metadata got %v, want grounded false, base_model true", base.Final.Metadata)
		}
		if srcs, _ := base.Final.Metadata["sources"].([]any); len(srcs) != 0 {
			t.Errorf("base model sources got %v, want none", srcs)
		}
		if base.Text == "" {
			t.Error("base model answer is empty")
		}
	})
	t.Run("nothing relevant gives a generated answer", func(t *testing.T) {
		c := ts.client(t, c.key)
		res := c.ask(map[string]any{"query": "zebra xylophone quasar", "model_id": m.ID})
		if res.Text == "" || res.Final.Metadata["grounded"] != false {
			t.Errorf("answer %q grounded %v, want a generated answer", res.Text, res.Final.Metadata["grounded"])
		}
	})
	t.Run("the same question gives the same answer", func(t *testing.T) {
		c := ts.client(t, c.key)
		a := c.ask(map[string]any{"query": q, "model_id": m.ID})
		b := c.ask(map[string]any{"query": q, "model_id": m.ID})
		if a.Text != b.Text {
			t.Errorf("answers differ:\n%q\n%q", a.Text, b.Text)
		}
	})
	t.Run("Accept application/json gives one envelope", func(t *testing.T) {
		c := ts.client(t, c.key)
		stream := c.ask(map[string]any{"query": q, "model_id": m.ID})
		r := c.post("/api/v1/user/inference", map[string]any{"query": q, "model_id": m.ID, "thread_id": "t1"},
			withHeader("Accept", "application/json")).want(t, 200)
		var res struct {
			Response   string         `json:"response"`
			ThreadID   string         `json:"thread_id"`
			TokensUsed int            `json:"tokens_used"`
			Metadata   map[string]any `json:"metadata"`
		}
		r.data(t, &res)
		if res.Response != stream.Text || res.ThreadID != "t1" || res.TokensUsed != stream.Tokens || res.Metadata["grounded"] != true {
			t.Errorf("JSON result got %+v, want the streamed answer %q with %d tokens", res, stream.Text, stream.Tokens)
		}
	})
	t.Run("a training model answers", func(t *testing.T) {
		ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.TrainDuration = 1 << 40 }))
		c := ts.client(t, testKey1)
		d := c.createDataset("handbook", fixtureFile(t, "employee-handbook.md"))
		m := c.createModel(d.ID, "in training")
		res := c.ask(map[string]any{"query": "How many days of paid leave do employees receive per year?", "model_id": m.ID})
		if !strings.Contains(res.Text, "27 days") {
			t.Errorf("training model answered %q, want the handbook fact", res.Text)
		}
	})
}

func TestInferenceRefusals(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	m := c.models()[0]
	deep := strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100)
	big := `{"query":"` + strings.Repeat("x", 2<<20) + `","model_id":1}`
	cases := []struct {
		name   string
		opts   []reqOpt
		status int
		says   []string
	}{
		{name: "temperature 1.5", opts: []reqOpt{withJSON(map[string]any{"query": "q", "model_id": m.ID, "temperature": 1.5})}, status: 422, says: []string{"temperature"}},
		{name: "temperature -0.1", opts: []reqOpt{withJSON(map[string]any{"query": "q", "model_id": m.ID, "temperature": -0.1})}, status: 422, says: []string{"temperature"}},
		{name: "missing query", opts: []reqOpt{withJSON(map[string]any{"model_id": m.ID})}, status: 422, says: []string{"query"}},
		{name: "empty query", opts: []reqOpt{withJSON(map[string]any{"query": "", "model_id": m.ID})}, status: 422, says: []string{"query"}},
		{name: "query too long", opts: []reqOpt{withJSON(map[string]any{"query": strings.Repeat("q", 32001), "model_id": m.ID})}, status: 422, says: []string{"query"}},
		{name: "missing model_id", opts: []reqOpt{withJSON(map[string]any{"query": "q"})}, status: 422, says: []string{"model_id"}},
		{name: "max_tokens 0", opts: []reqOpt{withJSON(map[string]any{"query": "q", "model_id": m.ID, "max_tokens": 0})}, status: 422, says: []string{"max_tokens"}},
		{name: "unknown length preference", opts: []reqOpt{withJSON(map[string]any{"query": "q", "model_id": m.ID, "response_length_preference": "epic"})}, status: 422, says: []string{"response_length_preference"}},
		{name: "unknown model", opts: []reqOpt{withJSON(map[string]any{"query": "q", "model_id": 987654})}, status: 404},
		{name: "malformed JSON", opts: []reqOpt{withJSON(`{"query": "q", "model_id": `)}, status: 400, says: []string{"JSON"}},
		{name: "two JSON values", opts: []reqOpt{withJSON(`{"query":"q","model_id":1} {}`)}, status: 400},
		{name: "empty body", opts: []reqOpt{withJSON(``)}, status: 400},
		{name: "no body", opts: nil, status: 400},
		{name: "nested 100 deep", opts: []reqOpt{withJSON(deep)}, status: 400, says: []string{"64"}},
		{name: "2 MiB body", opts: []reqOpt{withJSON(big)}, status: 413},
		{name: "form instead of JSON", opts: []reqOpt{withBody("application/x-www-form-urlencoded", strings.NewReader("query=q"))}, status: 400, says: []string{"application/json"}},
		{name: "unknown stream fault", opts: []reqOpt{withJSON(map[string]any{"query": "q", "model_id": m.ID}), withHeader("X-Mock-Stream-Fault", "explode")}, status: 400, says: []string{"X-Mock-Stream-Fault"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.client(t, c.key)
			c.do(http.MethodPost, "/api/v1/user/inference", tc.opts...).wantError(t, tc.status, tc.says...)
		})
	}
	t.Run("a failed model is 409", func(t *testing.T) {
		c := ts.client(t, c.key)
		for _, fm := range c.models() {
			if str(fm.Status) == "failed" {
				c.post("/api/v1/user/inference", map[string]any{"query": "q", "model_id": fm.ID}).wantError(t, 409)
				return
			}
		}
		t.Fatal("the fixtures have no failed model")
	})
}

// TestInferenceStreamFaults checks X-Mock-Stream-Fault: error sends an error
// chunk halfway then [DONE]; cut drops the connection halfway without
// [DONE]; stall is TestInferenceStall.
func TestInferenceStreamFaults(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("handbook", fixtureFile(t, "employee-handbook.md"))
	body := map[string]any{"query": "What does the handbook say about paid leave and expenses?", "model_id": m.ID, "response_length_preference": "detailed"}
	full := c.ask(body)
	if full.Tokens < 4 {
		t.Fatalf("answer has %d tokens, want a few to cut halfway", full.Tokens)
	}
	half := full.Tokens / 2

	t.Run("error", func(t *testing.T) {
		c := ts.client(t, c.key)
		res := c.ask(body, withHeader("X-Mock-Stream-Fault", "error"))
		last := res.Chunks[len(res.Chunks)-1]
		if last.Type != "error" || last.Message == "" || !res.DoneMarker || res.Final != nil {
			t.Errorf("stream ends with %+v (done chunk %v, [DONE] %v), want an error chunk with a message, then [DONE]", last, res.Final, res.DoneMarker)
		}
		if res.Tokens != half {
			t.Errorf("tokens before the error got %d, want %d", res.Tokens, half)
		}
	})
	t.Run("cut", func(t *testing.T) {
		c := ts.client(t, c.key)
		resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withJSON(body), withHeader("X-Mock-Stream-Fault", "cut"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status got %d, want 200", resp.StatusCode)
		}
		res, err := parseStream(t, resp.Body)
		if err == nil {
			t.Error("reading a cut stream got no error, want the connection dropped")
		}
		if res.DoneMarker || res.Final != nil {
			t.Error("a cut stream ended cleanly")
		}
		if res.Tokens != half {
			t.Errorf("tokens before the cut got %d, want %d", res.Tokens, half)
		}
		// The server keeps serving.
		c.ask(body)
	})
	t.Run("fault names are case-insensitive", func(t *testing.T) {
		c := ts.client(t, c.key)
		res := c.ask(body, withHeader("X-Mock-Stream-Fault", "ERROR"))
		if res.count("error") != 1 {
			t.Errorf("error chunks got %d, want 1", res.count("error"))
		}
	})
}

// streamWatch wraps the server handler and records, per inference request,
// when ServeHTTP returned and what it wrote.
type streamWatch struct {
	mu       sync.Mutex
	returned chan struct{}
	written  bytes.Buffer
}

func newStreamWatch() *streamWatch { return &streamWatch{returned: make(chan struct{})} }

func (sw *streamWatch) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/user/inference" {
			next.ServeHTTP(w, r)
			return
		}
		defer close(sw.returned) // one watched stream per server
		next.ServeHTTP(&watchWriter{ResponseWriter: w, sw: sw}, r)
	})
}

func (sw *streamWatch) text() string {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.written.String()
}

// waitReturned fails the test unless ServeHTTP returns within a generous bound.
func (sw *streamWatch) waitReturned(t *testing.T) {
	t.Helper()
	select {
	case <-sw.returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not return after the client left")
	}
}

type watchWriter struct {
	http.ResponseWriter
	sw *streamWatch
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.sw.mu.Lock()
	w.sw.written.Write(p)
	w.sw.mu.Unlock()
	return w.ResponseWriter.Write(p)
}

func (w *watchWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// readUntil reads events until one of type typ arrived.
func readUntil(t *testing.T, sr *sseReader, typ string) {
	t.Helper()
	for range 10000 {
		data, err := sr.next()
		if err != nil {
			t.Fatalf("stream ended before a %s chunk: %v", typ, err)
		}
		var ch chunkJSON
		if json.Unmarshal([]byte(data), &ch) == nil && ch.Type == typ {
			return
		}
	}
	t.Fatalf("no %s chunk", typ)
}

// TestInferenceStall: after the first token nothing more is sent, and the
// handler ends when the client leaves. With TokenInterval 0 a stream that
// did not stall would be written whole before the client even reads.
func TestInferenceStall(t *testing.T) {
	sw := newStreamWatch()
	ts := newTestServer(t, withoutFixtures(), withWrap(sw.wrap))
	c := ts.client(t, testKey1)
	m := c.readyModel("handbook", fixtureFile(t, "employee-handbook.md"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds every read
	defer cancel()
	resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withContext(ctx),
		withJSON(map[string]any{"query": "paid leave and expenses", "model_id": m.ID}), withHeader("X-Mock-Stream-Fault", "stall"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readUntil(t, newSSEReader(resp.Body), "token")
	cancel()
	sw.waitReturned(t)
	written := sw.text()
	if n := strings.Count(written, `"type":"token"`); n != 1 {
		t.Errorf("token chunks written got %d, want 1 (a stall after the first token)", n)
	}
	if strings.Contains(written, "[DONE]") || strings.Contains(written, `"type":"done"`) {
		t.Error("a stalled stream was finished")
	}
}

// TestInferenceClientGoesAway: with tokens paced, a client that cancels
// after the first token ends the handler; the rest is never written.
func TestInferenceClientGoesAway(t *testing.T) {
	sw := newStreamWatch()
	ts := newTestServer(t, withoutFixtures(), withWrap(sw.wrap),
		withConfig(func(c *Config) { c.TokenInterval = 100 * time.Millisecond }))
	c := ts.client(t, testKey1)
	m := c.readyModel("handbook", fixtureFile(t, "employee-handbook.md"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds every read
	defer cancel()
	resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withContext(ctx),
		withJSON(map[string]any{"query": "What does the handbook say about paid leave, remote work and expenses?", "model_id": m.ID, "response_length_preference": "detailed"}))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readUntil(t, newSSEReader(resp.Body), "token")
	cancel()
	sw.waitReturned(t)
	if strings.Contains(sw.text(), "[DONE]") {
		t.Error("the whole stream was written for a client that left after the first token")
	}
	// The server is still fine.
	ts.client(t, testKey1).get("/api/v1/user/model").want(t, 200)
}

// TestInferenceShutdownEndsStreams: Shutdown ends an open stream with an
// error chunk and [DONE], whether it waits for its next token or stalls.
func TestInferenceShutdownEndsStreams(t *testing.T) {
	for _, fault := range []string{"", "stall"} {
		t.Run("fault="+fault, func(t *testing.T) {
			sw := newStreamWatch()
			interval := time.Hour // the first token never comes
			if fault == "stall" {
				interval = 0 // a stall waits after its first token
			}
			ts := newTestServer(t, withoutFixtures(), withWrap(sw.wrap),
				withConfig(func(c *Config) { c.TokenInterval = interval }))
			c := ts.client(t, testKey1)
			m := c.readyModel("handbook", fixtureFile(t, "employee-handbook.md"))
			opts := []reqOpt{withJSON(map[string]any{"query": "paid leave", "model_id": m.ID})}
			first := "status"
			if fault != "" {
				opts = append(opts, withHeader("X-Mock-Stream-Fault", fault))
				first = "token"
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds every read
			defer cancel()
			resp, err := c.open(http.MethodPost, "/api/v1/user/inference", append(opts, withContext(ctx))...)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			sr := newSSEReader(resp.Body)
			readUntil(t, sr, first)
			ts.srv.Shutdown()
			var rest []string
			for range 1000 {
				data, err := sr.next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("reading after Shutdown: %v", err)
				}
				rest = append(rest, data)
			}
			sw.waitReturned(t)
			if len(rest) < 2 || rest[len(rest)-1] != "[DONE]" || !strings.Contains(rest[len(rest)-2], `"type":"error"`) {
				t.Errorf("after Shutdown the stream sent %q, want an error chunk then [DONE]", rest)
			}
		})
	}
}
