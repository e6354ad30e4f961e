package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/spec/spectest"
)

const modelTemplate = "/api/v1/user/model/{model_id}"

// setOverride posts an override and returns it as the mock answered.
func setOverride(t *testing.T, c *apiClient, body map[string]any) overrideView {
	t.Helper()
	var o overrideView
	c.post("/admin/overrides", body).want(t, 200).data(t, &o)
	if o.ID < 1 {
		t.Fatalf("override without an id: %+v", o)
	}
	return o
}

// overrideView is an override as the admin API shows it.
type overrideView struct {
	ID         int64           `json:"id"`
	Operation  string          `json:"operation"`
	Match      map[string]any  `json:"match"`
	Respond    map[string]any  `json:"respond"`
	Times      *int64          `json:"times"`
	Remaining  *int64          `json:"remaining"`
	Documented bool            `json:"documented"`
	Raw        json.RawMessage `json:"-"`
}

func listOverrides(t *testing.T, c *apiClient) []overrideView {
	t.Helper()
	var out []overrideView
	c.get("/admin/overrides").want(t, 200).data(t, &out)
	return out
}

func getModel503(body ...map[string]any) map[string]any {
	o := map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate}, "respond": map[string]any{"status": 503}}
	for _, b := range body {
		for k, v := range b {
			o[k] = v
		}
	}
	return o
}

// offContract is a client for answers the contract does not document (a
// forced 503): each is still checked as the seed's error envelope (§1), and
// against the schema of the operation's documented errors.
func offContract(t *testing.T, ts *testServer, key string) *apiClient {
	tr := newContractTransport(t, ts.hs.Client().Transport, func(tr *spectest.Transport) {
		tr.Undocumented = func(*http.Request, int) bool { return true }
	})
	return &apiClient{t: t, base: ts.url, key: key, http: &http.Client{Transport: tr}}
}

// TestOverrideForcesCountsAndRemovesAFailure is the flow: one key
// forces GET of a model to answer 503, sees it listed, sees it answered,
// removes it; the other key is never touched.
func TestOverrideForcesCountsAndRemovesAFailure(t *testing.T) {
	ts := newTestServer(t)
	c1, c2 := ts.client(t, testKey1), ts.client(t, testKey2)
	down := offContract(t, ts, testKey1)
	m1, m2 := c1.models()[0], c2.models()[0]

	o := setOverride(t, c1, getModel503())
	if o.Operation != "getModel" || o.Times != nil || o.Remaining != nil || o.Documented {
		t.Errorf("override got %+v, want getModel, until removed, a status the contract does not document", o)
	}
	if l := listOverrides(t, c1); len(l) != 1 || l[0].ID != o.ID {
		t.Fatalf("key 1 lists %+v, want its one override", l)
	}
	if l := listOverrides(t, c2); len(l) != 0 {
		t.Fatalf("key 2 lists %+v, want none", l)
	}
	for range 2 {
		r := down.get(fmt.Sprintf("/api/v1/user/model/%d", m1.ID)).wantError(t, 503, "Service Unavailable")
		if r.Header.Get("X-Mock-Override") != fmt.Sprint(o.ID) {
			t.Errorf("X-Mock-Override got %q, want %d", r.Header.Get("X-Mock-Override"), o.ID)
		}
	}
	c2.model(m2.ID)                                                                 // another key: served as usual
	c1.models()                                                                     // another operation: served as usual
	c2.do(http.MethodDelete, fmt.Sprintf("/admin/overrides/%d", o.ID)).want(t, 404) // not key 2's to remove
	c1.do(http.MethodDelete, fmt.Sprintf("/admin/overrides/%d", o.ID)).want(t, 200)
	c1.model(m1.ID)
	c1.do(http.MethodDelete, fmt.Sprintf("/admin/overrides/%d", o.ID)).want(t, 404)

	setOverride(t, c1, getModel503())
	setOverride(t, c1, getModel503())
	var cleared map[string]any
	c1.do(http.MethodDelete, "/admin/overrides").want(t, 200).data(t, &cleared)
	if cleared["removed"] != float64(2) || len(listOverrides(t, c1)) != 0 {
		t.Errorf("DELETE /admin/overrides got %v, want 2 removed and none left", cleared)
	}
	c1.model(m1.ID)
}

func TestOverrideTimesRunOut(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	down := offContract(t, ts, testKey1)
	m := c.models()[0]
	o := setOverride(t, c, getModel503(map[string]any{"times": 2}))
	if o.Times == nil || *o.Times != 2 || o.Remaining == nil || *o.Remaining != 2 {
		t.Fatalf("override got times %v remaining %v, want 2 and 2", o.Times, o.Remaining)
	}
	path := fmt.Sprintf("/api/v1/user/model/%d", m.ID)
	down.get(path).want(t, 503)
	if l := listOverrides(t, c); len(l) != 1 || *l[0].Remaining != 1 {
		t.Fatalf("after one use lists %+v, want one with 1 left", l)
	}
	down.get(path).want(t, 503)
	c.model(m.ID)
	if l := listOverrides(t, c); len(l) != 0 {
		t.Errorf("a spent override is still listed: %+v", l)
	}
}

// TestOverrideOrderAndMatch: the oldest matching override answers; a
// concrete path, a query field and a body field narrow what matches.
func TestOverrideOrderAndMatch(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	ms := c.models()
	if len(ms) < 2 {
		t.Fatalf("fixtures hold %d models, want 2", len(ms))
	}
	a, b := ms[0], ms[1]

	first := setOverride(t, c, map[string]any{"match": map[string]any{"method": "get", "path": fmt.Sprintf("/api/v1/user/model/%d", a.ID)}, "respond": map[string]any{"status": 404, "message": "gone for this test"}})
	setOverride(t, c, map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate}, "respond": map[string]any{"status": 500}})
	if !first.Documented {
		t.Error("a 404 of getModel is documented")
	}
	c.get(fmt.Sprintf("/api/v1/user/model/%d", a.ID)).wantError(t, 404, "gone for this test")
	c.get(fmt.Sprintf("/api/v1/user/model/%d", b.ID)).wantError(t, 500, "forced by override")
	c.do(http.MethodDelete, "/admin/overrides").want(t, 200)

	setOverride(t, c, map[string]any{"match": map[string]any{"method": "GET", "path": "/api/v1/user/conversations", "query": map[string]any{"model_id": fmt.Sprint(a.ID)}}, "respond": map[string]any{"status": 500}})
	c.get(fmt.Sprintf("/api/v1/user/conversations?model_id=%d", a.ID)).want(t, 500)
	c.get(fmt.Sprintf("/api/v1/user/conversations?model_id=%d", b.ID)).want(t, 200)
	c.do(http.MethodDelete, "/admin/overrides").want(t, 200)

	setOverride(t, c, map[string]any{"match": map[string]any{"method": "POST", "path": "/api/v1/user/conversations", "body": map[string]any{"model_id": a.ID}}, "respond": map[string]any{"status": 422, "message": "title refused"}})
	c.post("/api/v1/user/conversations", map[string]any{"model_id": a.ID, "title": "x"}).wantError(t, 422, "title refused")
	// D-21: a string model_id is rewritten before the body is compared.
	c.post("/api/v1/user/conversations", map[string]any{"model_id": fmt.Sprint(a.ID), "title": "x"}).wantError(t, 422, "title refused")
	c.post("/api/v1/user/conversations", map[string]any{"model_id": b.ID, "title": "x"}).want(t, 200)
}

// TestOverrideKinds: each answer an override gives, checked against the
// contract by the test client.
func TestOverrideKinds(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	m := c.models()[0]
	path := fmt.Sprintf("/api/v1/user/model/%d", m.ID)

	t.Run("example", func(t *testing.T) {
		setOverride(t, c, map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate}, "respond": map[string]any{"example": "training"}, "times": 1})
		var got map[string]any
		c.get(path).want(t, 200).data(t, &got)
		if got["status"] != "training" || got["graph_build_progress"] != float64(40) {
			t.Errorf("example training got %v", got)
		}
		if got := c.model(m.ID); got.ID != m.ID {
			t.Errorf("after the example, the model itself got %+v", got)
		}
	})
	t.Run("data", func(t *testing.T) {
		model := map[string]any{"id": 99, "name": "Literal", "status": "failed", "created_at": "2026-03-01T08:00:00Z"}
		setOverride(t, c, map[string]any{"match": map[string]any{"method": "GET", "path": path}, "respond": map[string]any{"status": 200, "data": model}, "times": 1})
		var got map[string]any
		c.get(path).want(t, 200).data(t, &got)
		if got["name"] != "Literal" || got["status"] != "failed" || got["id"] != float64(99) {
			t.Errorf("literal data got %v", got)
		}
	})
	t.Run("data that breaks the schema", func(t *testing.T) {
		broken := map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate}, "respond": map[string]any{"status": 200, "data": map[string]any{"id": "not a number"}}, "times": 1}
		c.post("/admin/overrides", broken).wantError(t, 422, "respond.data", "unchecked")
		broken["respond"].(map[string]any)["unchecked"] = true
		o := setOverride(t, c, broken)
		raw := &apiClient{t: t, base: ts.url, key: testKey1, http: ts.hs.Client()}
		r := raw.get(path).want(t, 200)
		if !strings.Contains(string(r.Body), `"id":"not a number"`) {
			t.Errorf("an unchecked literal got %s", r.Body)
		}
		if len(listOverrides(t, c)) != 0 {
			t.Errorf("override %d not spent", o.ID)
		}
	})
	t.Run("example answers an upload it did not read", func(t *testing.T) {
		setOverride(t, c, map[string]any{"match": map[string]any{"method": "POST", "path": "/api/v1/user/dataset"}, "respond": map[string]any{"example": "created"}, "times": 1})
		before := len(c.datasets())
		ct, body := multipartBody(t, [][2]string{{"dataset_name", "never made"}}, fixtureFile(t, "employee-handbook.md"))
		var d map[string]any
		c.do(http.MethodPost, "/api/v1/user/dataset", withBody(ct, body)).want(t, 200).data(t, &d)
		if d["name"] == "never made" || len(c.datasets()) != before {
			t.Errorf("the example answered %v and the account holds %d datasets (was %d): the upload was made", d, len(c.datasets()), before)
		}
	})
	t.Run("delay", func(t *testing.T) {
		setOverride(t, c, map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate}, "respond": map[string]any{"delay": "30s"}, "times": 1})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		resp, err := c.open(http.MethodGet, path, withContext(ctx))
		if err == nil {
			resp.Body.Close()
			t.Fatalf("a 30s delay answered (%d) before a 50ms deadline", resp.StatusCode)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error got %v, want the deadline", err)
		}
		c.model(m.ID) // the one use is spent: served at once
	})
}

func TestOverrideStreamFaults(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("handbook", fixtureFile(t, "employee-handbook.md"))
	body := map[string]any{"query": "What does the handbook say about paid leave and expenses?", "model_id": m.ID, "response_length_preference": "detailed"}
	fault := func(kind string) {
		setOverride(t, c, map[string]any{"match": map[string]any{"method": "POST", "path": "/api/v1/user/inference"}, "respond": map[string]any{"stream_fault": kind}, "times": 1})
	}
	fault("error")
	res := c.ask(body)
	if res.count("error") != 1 || !res.DoneMarker {
		t.Errorf("error fault: %d error chunks, [DONE] %v", res.count("error"), res.DoneMarker)
	}
	fault("cut")
	resp, err := c.open(http.MethodPost, "/api/v1/user/inference", withJSON(body))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("X-Mock-Stream-Fault") != "cut" {
		t.Errorf("X-Mock-Stream-Fault got %q, want cut", resp.Header.Get("X-Mock-Stream-Fault"))
	}
	if cut, err := parseStream(t, resp.Body); err == nil || cut.DoneMarker {
		t.Error("a cut stream ended cleanly")
	}
	resp.Body.Close()
	if full := c.ask(body); !full.DoneMarker || full.count("error") != 0 {
		t.Error("after the faults were spent, the stream is not whole")
	}
	entries := journalOf(t, c, "?path=/api/v1/user/inference")
	kinds := []string{}
	for _, e := range entries {
		if o, ok := e["override"].(map[string]any); ok {
			kinds = append(kinds, fmt.Sprint(o["kind"]))
		}
	}
	if strings.Join(kinds, ",") != "stream_fault,stream_fault" {
		t.Errorf("journal marks got %v, want the two faulted streams", kinds)
	}
}

// TestOverrideRefusals: an override the mock could not honour is refused,
// with the reason, and nothing is set.
func TestOverrideRefusals(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	match := map[string]any{"method": "GET", "path": modelTemplate}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		says   string
	}{
		{"unknown path", map[string]any{"match": map[string]any{"method": "GET", "path": "/api/v1/user/modle/{id}"}, "respond": map[string]any{"status": 503}}, 422, "not a path of the contract"},
		{"unknown concrete path", map[string]any{"match": map[string]any{"method": "GET", "path": "/api/v2/models"}, "respond": map[string]any{"status": 503}}, 422, "no path of the contract"},
		{"method not there", map[string]any{"match": map[string]any{"method": "PUT", "path": modelTemplate}, "respond": map[string]any{"status": 503}}, 422, "methods there"},
		{"no method", map[string]any{"match": map[string]any{"path": modelTemplate}, "respond": map[string]any{"status": 503}}, 422, "match.method"},
		{"query in the path", map[string]any{"match": map[string]any{"method": "GET", "path": "/api/v1/user/model?x=1"}, "respond": map[string]any{"status": 503}}, 422, "match.query"},
		{"no answer", map[string]any{"match": match, "respond": map[string]any{}}, 422, "one of"},
		{"two answers", map[string]any{"match": match, "respond": map[string]any{"status": 503, "example": "ready"}}, 422, "at most one of"},
		{"a range upside down", map[string]any{"match": match, "respond": map[string]any{"status": 503, "delay": map[string]any{"min": "900ms", "max": "100ms"}}}, 422, "lower bound first"},
		{"a range without max", map[string]any{"match": match, "respond": map[string]any{"delay": map[string]any{"min": "100ms"}}}, 422, "respond.delay"},
		{"a range with more", map[string]any{"match": match, "respond": map[string]any{"delay": map[string]any{"min": "1ms", "max": "2ms", "jitter": true}}}, 422, "respond.delay"},
		{"a range too long", map[string]any{"match": match, "respond": map[string]any{"delay": "1s..90s"}}, 422, "respond.delay"},
		{"pace off a stream", map[string]any{"match": match, "respond": map[string]any{"token_interval": "50ms"}}, 422, "token_interval"},
		{"pace with an error status", map[string]any{"match": map[string]any{"method": "POST", "path": "/api/v1/user/inference"}, "respond": map[string]any{"status": 503, "token_interval": "50ms"}}, 422, "token_interval"},
		{"success without data", map[string]any{"match": match, "respond": map[string]any{"status": 200}}, 422, "needs data"},
		{"data with an error status", map[string]any{"match": match, "respond": map[string]any{"status": 500, "data": map[string]any{}}}, 422, "2xx"},
		{"unknown example", map[string]any{"match": match, "respond": map[string]any{"example": "e.g. ready"}}, 422, "examples: ready, training"},
		{"stream fault off a stream", map[string]any{"match": match, "respond": map[string]any{"stream_fault": "cut"}}, 422, "no event stream"},
		{"unknown stream fault", map[string]any{"match": map[string]any{"method": "POST", "path": "/api/v1/user/inference"}, "respond": map[string]any{"stream_fault": "explode"}}, 422, "stall, cut, error"},
		{"delay too long", map[string]any{"match": match, "respond": map[string]any{"delay": "61s"}}, 422, "respond.delay"},
		{"times zero", map[string]any{"match": match, "respond": map[string]any{"status": 503}, "times": 0}, 422, "times"},
		{"unknown field", map[string]any{"match": match, "respond": map[string]any{"status": 503}, "count": 1}, 422, "count"},
		{"body match without a body", map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate, "body": map[string]any{"a": 1}}, "respond": map[string]any{"status": 503}}, 422, "no JSON body"},
		{"unchecked without data", map[string]any{"match": match, "respond": map[string]any{"status": 503, "unchecked": true}}, 422, "unchecked"},
		{"not JSON", "{", 400, "JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.post("/admin/overrides", tc.body).wantError(t, tc.status, tc.says)
		})
	}
	c.post("/admin/overrides", "{}", withHeader("Content-Type", "text/plain")).wantError(t, 400, "Content-Type")
	huge := map[string]any{"match": match, "respond": map[string]any{"status": 200, "data": strings.Repeat("x", maxOverrideBody)}}
	c.post("/admin/overrides", huge).wantError(t, 413, "exceeds")
	c.get("/admin/overrides/1").wantError(t, 405)
	c.do(http.MethodPut, "/admin/overrides").wantError(t, 405)
	c.do(http.MethodDelete, "/admin/overrides/abc").wantError(t, 404)
	if l := listOverrides(t, c); len(l) != 0 {
		t.Errorf("refused overrides were kept: %+v", l)
	}

	for range maxOverrides {
		setOverride(t, c, getModel503())
	}
	c.post("/admin/overrides", getModel503()).wantError(t, 409, "100 overrides")
}

func TestOverrideJournalResetAndState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	ts := newTestServer(t, withConfig(func(c *Config) { c.StateFile = path }))
	c := ts.client(t, testKey1)
	m := c.models()[0]
	o := setOverride(t, c, map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate}, "respond": map[string]any{"status": 500}, "times": 1})
	c.get(fmt.Sprintf("/api/v1/user/model/%d", m.ID)).want(t, 500)
	c.model(m.ID)
	entries := journalOf(t, c, "?path=/api/v1/user/model/")
	if len(entries) != 2 {
		t.Fatalf("journal holds %d entries, want 2", len(entries))
	}
	mark, ok := entries[0]["override"].(map[string]any)
	if !ok || mark["id"] != float64(o.ID) || mark["kind"] != "status" {
		t.Errorf("the overridden call's mark got %v, want id %d kind status", entries[0]["override"], o.ID)
	}
	if _, ok := entries[1]["override"]; ok {
		t.Errorf("a call no override touched is marked: %v", entries[1]["override"])
	}

	setOverride(t, c, getModel503())
	c.post("/admin/reset", nil).want(t, 200)
	if l := listOverrides(t, c); len(l) != 0 {
		t.Errorf("a reset kept %+v", l)
	}

	setOverride(t, c, getModel503())
	if err := ts.srv.Close(); err != nil {
		t.Fatal(err)
	}
	again := newTestServer(t, withConfig(func(c *Config) { c.StateFile = path }))
	c2 := again.client(t, testKey1)
	if l := listOverrides(t, c2); len(l) != 0 {
		t.Errorf("the state file kept overrides: %+v", l)
	}
	c2.model(m.ID)
	if err := again.srv.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOverrideConcurrentUses: requests racing for a rule's uses get exactly
// as many overridden answers as it had (run it with -race).
func TestOverrideConcurrentUses(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	m := c.models()[0]
	const uses, workers, each = 25, 8, 10
	setOverride(t, c, map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate}, "respond": map[string]any{"status": 500}, "times": uses})
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			wc := ts.client(t, testKey1)
			for range each {
				// open, not get: a failure is reported with Errorf, never
				// Fatalf, from a goroutine other than the test's.
				resp, err := wc.open(http.MethodGet, fmt.Sprintf("/api/v1/user/model/%d", m.ID))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				got[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if got[500] != uses || got[200] != workers*each-uses {
		t.Errorf("answers got %v, want %d × 500 and %d × 200", got, uses, workers*each-uses)
	}
}

// TestOverrideSetCountsItsRules: the count that lets requests skip the
// lock follows adds, spent uses, removals and clears.
func TestOverrideSetCountsItsRules(t *testing.T) {
	var s overrideSet
	rule := func(left int64) *overrideRule {
		o := &overrideRule{Operation: "getModel"}
		o.left.Store(left)
		return o
	}
	call := &overrideCall{operation: "getModel", query: func(string) (string, bool) { return "", false }, header: http.Header{}.Values, body: func() map[string]any { return nil }}
	s.add("a", rule(1))
	s.add("a", rule(-1))
	s.add("b", rule(2))
	if got := s.rules.Load(); got != 3 {
		t.Fatalf("after 3 adds: %d", got)
	}
	if o, _ := s.pick("a", call); o == nil || s.rules.Load() != 2 {
		t.Fatalf("after the last use of a rule: %d rules, want 2", s.rules.Load())
	}
	if _, ok := s.remove("a", 2); !ok || s.rules.Load() != 1 {
		t.Fatalf("after a removal: %d rules, want 1", s.rules.Load())
	}
	if s.clear("b") != 1 || s.rules.Load() != 0 {
		t.Fatalf("after a clear: %d rules, want 0", s.rules.Load())
	}
	if o, _ := s.pick("b", call); o != nil {
		t.Fatal("a cleared rule answered")
	}
}
