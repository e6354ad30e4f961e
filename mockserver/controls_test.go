package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/store"
	"contractkit/spec"
)

func TestPreferCode(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	cases := []struct {
		method, path string
		code         int
		says         string
	}{
		{"GET", "/api/v1/user/model/1", 404, "not found"},
		{"GET", "/api/v1/user/model/1", 401, ""},
		{"GET", "/api/v1/user/dataset", 500, "Internal server error"},
		{"POST", "/api/v1/evaluations", 422, "temperature"},
		{"DELETE", "/api/v1/evaluations/1", 409, "running"},
		{"POST", "/api/v1/user/dataset", 413, "100 MiB"},
		{"POST", "/api/v1/user/inference", 400, "JSON"},
		{"GET", "/api/v1/user/model", 429, "rate limit"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %s code=%d", tc.method, tc.path, tc.code), func(t *testing.T) {
			c := ts.client(t, c.key)
			r := c.do(tc.method, tc.path, withHeader("Prefer", fmt.Sprintf("code=%d", tc.code)))
			if tc.says == "" {
				r.wantError(t, tc.code)
			} else {
				r.wantError(t, tc.code, tc.says)
			}
			if tc.code == 429 {
				if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n < 1 {
					t.Errorf("Retry-After got %q, want whole seconds >= 1", r.Header.Get("Retry-After"))
				}
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		c := ts.client(t, c.key)
		c.get("/api/v1/user/model/1", withHeader("Prefer", "code=409")).wantError(t, 422, "not documented", "getModel")
		c.get("/api/v1/user/model/1", withHeader("Prefer", "code=418")).wantError(t, 422, "418")
		c.get("/api/v1/user/model", withHeader("Prefer", "code=413")).wantError(t, 422, "413")
		c.get("/api/v1/user/model", withHeader("Prefer", "code=abc")).wantError(t, 400, "Prefer")
		c.get("/api/v1/user/model", withHeader("Prefer", "code=99")).wantError(t, 400, "Prefer")
	})
	t.Run("code=200 and other preferences are the normal answer", func(t *testing.T) {
		c := ts.client(t, c.key)
		for _, p := range []string{"code=200", "return=minimal", "respond-async, wait=5"} {
			var ms []store.ModelView
			c.get("/api/v1/user/model", withHeader("Prefer", p)).want(t, 200).data(t, &ms)
			if len(ms) == 0 {
				t.Errorf("Prefer: %s got no models, want the account's", p)
			}
		}
	})
	t.Run("Prefer does not bypass the key", func(t *testing.T) {
		ts.client(t, "").get("/api/v1/user/model", withHeader("Prefer", "code=404")).wantError(t, 401)
		ts.client(t, "").get("/api/v1/user/model", withHeader("Prefer", "dynamic=true")).wantError(t, 401)
	})
}

func TestPreferExample(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	cases := []struct {
		method, path, example string
	}{
		{"GET", "/api/v1/user/model/1", "ready"},
		{"GET", "/api/v1/user/model/1", "training"},
		{"GET", "/api/v1/user/model", "twoModels"},
		{"GET", "/api/v1/user/model", "empty"},
		{"POST", "/api/v1/user/model", "training"},
		{"GET", "/api/v1/evaluations", "page"},
		{"GET", "/api/v1/evaluations/check-name?name=x", "taken"},
		{"POST", "/api/v1/user/inference", "result"},
		{"POST", "/api/v1/evaluations/1/run-ragas", "scored"},
		{"POST", "/api/v1/user/dataset/upload", "partial"},
	}
	kin := spec.Strict()
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.example, func(t *testing.T) {
			c := ts.client(t, c.key)
			r := c.do(tc.method, tc.path, withHeader("Prefer", "example="+tc.example)).want(t, 200)
			req, _ := http.NewRequest(tc.method, "http://x"+tc.path, nil)
			op, _, _, ok := kin.Find(req)
			if !ok {
				t.Fatalf("%s %s is not in the contract", tc.method, tc.path)
			}
			ex := op.Responses.Status(200).Value.Content.Get("application/json").Examples[tc.example].Value.Value
			want, _ := json.Marshal(ex)
			var got, wantV any
			_ = json.Unmarshal(r.Body, &got)
			_ = json.Unmarshal(want, &wantV)
			if fmt.Sprint(got) != fmt.Sprint(wantV) {
				t.Errorf("example %s got %s, want %s", tc.example, r.Body, want)
			}
		})
	}
	c.get("/api/v1/user/model/1", withHeader("Prefer", "example=nope")).wantError(t, 422, "nope", "ready", "training")
	c.do(http.MethodDelete, "/api/v1/user/model/1", withHeader("Prefer", "example=deleted")).want(t, 200)
}

// TestPreferDynamic: generated data validates against the contract for
// every operation with a JSON answer, with a few seeds.
func TestPreferDynamic(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 42} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.Seed = seed }))
			c := ts.client(t, testKey1)
			var first []byte
			for _, op := range spec.Strict().Operations {
				path := opPath(op.Path)
				if op.ID == "listConversations" {
					path += "?model_id=1"
				}
				if op.ID == "checkEvaluationName" {
					path += "?name=x"
				}
				r := c.do(op.Method, path, withHeader("Prefer", "dynamic=true")).want(t, 200)
				if r.Env.Status != "success" {
					t.Errorf("%s: envelope status got %q, want success", op.ID, r.Env.Status)
				}
				if op.ID == "getModel" {
					first = r.Body
				}
			}
			again := c.get(opPath("/api/v1/user/model/{model_id}"), withHeader("Prefer", "dynamic=true")).Body
			if !bytes.Equal(first, again) {
				t.Errorf("the same seed generated different data:\n%s\n%s", first, again)
			}
		})
	}
}

func TestDelayHeader(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	resp, err := c.open(http.MethodGet, "/api/v1/user/model", withContext(ctx), withHeader("X-Mock-Delay", "3s"))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a 3s X-Mock-Delay answered (%d) before a 50ms deadline, want the deadline to fire first", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error got %v, want the context deadline", err)
	}
	for _, d := range []string{"1ms", "1", "0"} {
		c.get("/api/v1/user/model", withHeader("X-Mock-Delay", d)).want(t, 200)
	}
	for _, d := range []string{"soon", "-5ms", "61s", "1h"} {
		c.get("/api/v1/user/model", withHeader("X-Mock-Delay", d)).wantError(t, 400, "X-Mock-Delay")
	}
}

func TestRateLimit(t *testing.T) {
	const limit = 3
	ts := newTestServer(t, withConfig(func(c *Config) { c.RateLimit = limit }))
	c := ts.client(t, testKey1)
	for i := range limit {
		r := c.get("/api/v1/user/model").want(t, 200)
		if got, want := r.Header.Get("X-RateLimit-Limit"), strconv.Itoa(limit); got != want {
			t.Errorf("X-RateLimit-Limit got %q, want %q", got, want)
		}
		if got, want := r.Header.Get("X-RateLimit-Remaining"), strconv.Itoa(limit-1-i); got != want {
			t.Errorf("request %d: X-RateLimit-Remaining got %q, want %q", i+1, got, want)
		}
	}
	r := c.get("/api/v1/user/dataset").wantError(t, 429, "rate limit")
	if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n < 1 {
		t.Errorf("Retry-After got %q, want whole seconds >= 1", r.Header.Get("Retry-After"))
	}
	c.post("/api/v1/user/inference", map[string]any{"query": "q", "model_id": 1}).wantError(t, 429)
	// Each key has its own bucket.
	ts.client(t, testKey2).get("/api/v1/user/model").want(t, 200)
	// The health check and admin are not limited.
	c.get("/healthz").want(t, 200)
	c.get("/admin/state").want(t, 200)

	ts.clock.Advance(time.Second)
	for range limit {
		c.get("/api/v1/user/model").want(t, 200)
	}
	c.get("/api/v1/user/model").wantError(t, 429)
	ts.clock.Advance(time.Second/limit + time.Millisecond) // one token back
	c.get("/api/v1/user/model").want(t, 200)
}

func TestErrorRate(t *testing.T) {
	ts := newTestServer(t, withConfig(func(c *Config) { c.ErrorRate = 1 }))
	c := ts.client(t, testKey1)
	for _, p := range []string{"/api/v1/user/model", "/api/v1/user/dataset", "/api/v1/evaluations"} {
		r := c.get(p).wantError(t, 500)
		if r.Env.Message == "" || strings.Contains(r.Env.Message, "goroutine") {
			t.Errorf("500 message got %q, want a short one", r.Env.Message)
		}
	}
	c.get("/healthz").want(t, 200)
	ts.client(t, "").get("/api/v1/user/model").wantError(t, 401) // the key is checked first

	for _, bad := range []float64{-0.1, 1.1} {
		if _, err := New(Config{ErrorRate: bad}); err == nil {
			t.Errorf("New with error rate %v: got no error", bad)
		}
	}
}

func TestCORS(t *testing.T) {
	ts := newTestServer(t)
	const origin = "http://localhost:5173"
	anon := ts.client(t, "")
	r := anon.do(http.MethodOptions, "/api/v1/user/inference",
		withHeader("Origin", origin), withHeader("Access-Control-Request-Method", "POST"),
		withHeader("Access-Control-Request-Headers", "authorization, content-type, prefer")).want(t, http.StatusNoContent)
	if got := r.Header.Get("Access-Control-Allow-Origin"); got != origin {
		t.Errorf("Access-Control-Allow-Origin got %q, want %q", got, origin)
	}
	for _, h := range []string{"Authorization", "Content-Type", "Prefer", "X-Mock-Delay", "X-Mock-Stream-Fault"} {
		if !strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), h) {
			t.Errorf("Access-Control-Allow-Headers %q lacks %s", r.Header.Get("Access-Control-Allow-Headers"), h)
		}
	}
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		if !strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), m) {
			t.Errorf("Access-Control-Allow-Methods %q lacks %s", r.Header.Get("Access-Control-Allow-Methods"), m)
		}
	}

	c := ts.client(t, testKey1)
	m := c.models()[0]
	resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withHeader("Origin", origin),
		withJSON(map[string]any{"query": "warranty", "model_id": m.ID}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := parseStream(t, resp.Body)
	resp.Body.Close()
	if err != nil || !res.DoneMarker {
		t.Fatalf("stream: %v, [DONE] %v", err, res.DoneMarker)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != origin {
		t.Errorf("a stream's Access-Control-Allow-Origin got %q, want %q", got, origin)
	}
	if !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Retry-After") {
		t.Errorf("Access-Control-Expose-Headers got %q, want Retry-After among them", resp.Header.Get("Access-Control-Expose-Headers"))
	}
	// An error is readable from the page too.
	r = anon.get("/api/v1/user/model", withHeader("Origin", origin)).wantError(t, 401)
	if r.Header.Get("Access-Control-Allow-Origin") != origin {
		t.Error("a 401 lacks Access-Control-Allow-Origin")
	}
	// Without Origin no CORS headers are sent.
	if r := c.get("/api/v1/user/model"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("Access-Control-Allow-Origin sent without an Origin")
	}
}

func TestAdmin(t *testing.T) {
	ts := newTestServer(t, withConfig(func(c *Config) {
		c.TrainDuration = 5 * time.Second
		c.EvalDuration = 10 * time.Second
	}))
	c1, c2 := ts.client(t, testKey1), ts.client(t, testKey2)

	t.Run("advance", func(t *testing.T) {
		d := c1.createDataset("fresh", fixtureFile(t, "pricing.json"))
		m := c1.createModel(d.ID, "fresh")
		other := c2.createModel(c2.createDataset("fresh", fixtureFile(t, "pricing.json")).ID, "fresh")
		e := c1.createEvaluation(c1.models()[0].ID, "run me")
		c1.post(fmt.Sprintf("/api/v1/evaluations/%d/start", e.ID), nil).want(t, 200)
		if got := str(c1.model(m.ID).Status); got != "pending" {
			t.Fatalf("new model got %s, want pending", got)
		}

		var adv map[string]string
		c1.post("/admin/advance?by=2s", nil).want(t, 200).data(t, &adv)
		if adv["advanced_by"] != "2s" || adv["clock_offset"] != "2s" {
			t.Errorf("advance by 2s got %v", adv)
		}
		if got := str(c1.model(m.ID).Status); got != "training" {
			t.Errorf("after 2s of 5s got %s, want training", got)
		}
		c1.post("/admin/advance", nil).want(t, 200).data(t, &adv)
		if got := c1.model(m.ID); str(got.Status) != "ready" || got.Metrics == nil {
			t.Errorf("after advance got %s, want ready with metrics", str(got.Status))
		}
		if got := c1.evaluation(e.ID); got.Status != "completed" || got.Results == nil {
			t.Errorf("evaluation after advance got %s, want completed with results", got.Status)
		}
		// Only the caller's account moved.
		if got := str(c2.model(other.ID).Status); got != "pending" {
			t.Errorf("account 2's model got %s, want pending (its clock did not move)", got)
		}
		var dump store.Dump
		c1.get("/admin/state").want(t, 200).data(t, &dump)
		if dump.ClockOffset == "0s" || !dump.Now.After(testEpoch) {
			t.Errorf("state got clock offset %s now %v, want advanced", dump.ClockOffset, dump.Now)
		}
		for _, bad := range []string{"soon", "-1s", "0s", "9000h"} {
			c1.post("/admin/advance?by="+bad, nil).wantError(t, 422, "by")
		}
	})

	t.Run("state and reset", func(t *testing.T) {
		var dump store.Dump
		c1.get("/admin/state").want(t, 200).data(t, &dump)
		if len(dump.Models) == 0 || len(dump.Datasets) == 0 || len(dump.Conversations) == 0 || len(dump.Evaluations) == 0 {
			t.Fatalf("state got %d models %d datasets %d conversations %d evaluations, want all", len(dump.Models), len(dump.Datasets), len(dump.Conversations), len(dump.Evaluations))
		}
		for _, cv := range dump.Conversations {
			if len(cv.Messages) != cv.TotalMessages {
				t.Errorf("conversation %s: %d messages, total_messages %d", cv.ID, len(cv.Messages), cv.TotalMessages)
			}
		}
		extra := c1.createDataset("extra", fixtureFile(t, "pricing.json"))
		c2extra := c2.createDataset("extra", fixtureFile(t, "pricing.json"))
		var msg map[string]string
		c1.post("/admin/reset", nil).want(t, 200).data(t, &msg)
		if msg["message"] == "" {
			t.Errorf("reset got %v, want a message", msg)
		}
		var after store.Dump
		c1.get("/admin/state").want(t, 200).data(t, &after)
		if ids(after.Datasets, datasetID)[extra.ID] {
			t.Error("reset kept a created dataset")
		}
		if len(after.Datasets) != 3 || len(after.Models) != 3 || after.ClockOffset != "0s" {
			t.Errorf("after reset got %d datasets %d models offset %s, want the fixtures (3, 3) and offset 0s", len(after.Datasets), len(after.Models), after.ClockOffset)
		}
		c1.dataset(extra.ID).wantError(t, 404)
		c2.dataset(c2extra.ID).want(t, 200) // the other account is untouched
	})

	t.Run("routing", func(t *testing.T) {
		c1.get("/admin/reset").wantError(t, 405)
		c1.do(http.MethodDelete, "/admin/state").wantError(t, 405)
		c1.get("/admin/nothing").wantError(t, 404)
	})
}

func TestServiceEndpoints(t *testing.T) {
	ts := newTestServer(t)
	anon := ts.client(t, "")
	r := anon.get("/openapi.yaml").want(t, 200)
	if !bytes.Equal(r.Body, spec.Document) {
		t.Errorf("/openapi.yaml is not the contract (%d bytes, want %d)", len(r.Body), len(spec.Document))
	}
	anon.post("/openapi.yaml", nil).wantError(t, 405)

	var h map[string]string
	anon.get("/healthz").want(t, 200).data(t, &h)
	if h["status"] != "ok" {
		t.Errorf("/healthz got %v, want status ok", h)
	}
	anon.do(http.MethodDelete, "/healthz").wantError(t, 405)

	c := ts.client(t, testKey1)
	c.do(http.MethodPut, "/api/v1/user/model").wantError(t, 405, "PUT")
	c.do(http.MethodDelete, "/api/v1/user/dataset").wantError(t, 405)
	c.post("/api/v1/user/model/1", map[string]any{}).wantError(t, 405)
	for _, p := range []string{"/api/v1/nope", "/api/v2/user/model", "/api/v1/user/model/1/extra", "/api/v1/evaluations/1/stop"} {
		c.get(p).wantError(t, 404)
	}
	anon.get("/api/v1/nope").wantError(t, 401) // the key is checked before routing
}

func TestRecoveredPanic(t *testing.T) {
	ts := newTestServer(t, withHook(func(s *Server) {
		s.handlers["getModel"] = func(*call) (any, error) { panic("handler bug with internal detail") }
		s.handlers["listDatasets"] = func(*call) (any, error) { return nil, errors.New("internal detail") }
	}))
	c := ts.client(t, testKey1)
	for range 2 {
		r := c.get("/api/v1/user/model/1").wantError(t, 500)
		if strings.Contains(r.Env.Message, "internal detail") {
			t.Errorf("the 500 leaks the panic: %q", r.Env.Message)
		}
	}
	r := c.get("/api/v1/user/dataset").wantError(t, 500)
	if strings.Contains(r.Env.Message, "internal detail") {
		t.Errorf("the 500 leaks the error: %q", r.Env.Message)
	}
	c.get("/api/v1/user/model").want(t, 200) // the server keeps serving
}
