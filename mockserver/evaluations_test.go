package mockserver

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver/store"
)

func checkName(t *testing.T, c *apiClient, name string) store.NameCheck {
	t.Helper()
	var nc store.NameCheck
	c.get("/api/v1/evaluations/check-name?name="+url.QueryEscape(name)).want(t, 200).data(t, &nc)
	return nc
}

func TestEvaluationNames(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("bot", fixtureFile(t, "employee-handbook.md"))

	if nc := checkName(t, c, "Weekly RAGAS (v2): support/handbook"); !nc.Valid || !nc.Available || nc.Message == "" {
		t.Errorf("free name got %+v, want valid and available with a message", nc)
	}
	e := c.createEvaluation(m.ID, "Weekly RAGAS (v2): support/handbook")
	if e.Status != "pending" || e.Type != "ragas" || e.BenchmarkType != "beir" || e.QuestionCount != 10 || e.Description != "" {
		t.Errorf("new evaluation got %+v, want pending with the D-09 defaults", e)
	}
	if e.Model.ID != m.ID || e.Model.Name != m.Name || e.UserModel != nil || e.Results != nil {
		t.Errorf("new evaluation got model %+v user_model %v results %v, want model %d %q and nulls", e.Model, e.UserModel, e.Results, m.ID, m.Name)
	}
	for _, taken := range []string{"Weekly RAGAS (v2): support/handbook", "weekly ragas (V2): SUPPORT/HANDBOOK", "  Weekly RAGAS (v2): support/handbook  "} {
		if nc := checkName(t, c, taken); !nc.Valid || nc.Available || !strings.Contains(nc.Message, "exists") {
			t.Errorf("check-name %q got %+v, want valid, unavailable, saying it exists", taken, nc)
		}
	}
	// Another account may use the name.
	if nc := checkName(t, ts.client(t, testKey2), e.Name); !nc.Available {
		t.Errorf("check-name in account 2 got %+v, want available", nc)
	}

	invalid := []struct{ name, says string }{
		{"   ", "empty"},
		{"bad<name>", "letters"},
		{"semi;colon", "letters"},
		{strings.Repeat("n", 256), "255"},
	}
	for _, tc := range invalid {
		nc := checkName(t, c, tc.name)
		if nc.Valid || nc.Available || !strings.Contains(nc.Message, tc.says) {
			t.Errorf("check-name %.20q got %+v, want invalid, unavailable, a message mentioning %q", tc.name, nc, tc.says)
		}
		c.post("/api/v1/evaluations", map[string]any{"name": tc.name, "model_id": m.ID}).wantError(t, 422, "name")
	}
	c.get("/api/v1/evaluations/check-name").wantError(t, 422, "name")

	c.post("/api/v1/evaluations", map[string]any{"name": "WEEKLY ragas (v2): support/handbook", "model_id": m.ID}).wantError(t, 409, "exists")

	t.Run("update", func(t *testing.T) {
		c := ts.client(t, c.key)
		other := c.createEvaluation(m.ID, "other")
		ts.clock.Advance(time.Minute)
		var u store.EvaluationView
		c.do(http.MethodPut, fmt.Sprintf("/api/v1/evaluations/%d", e.ID), withJSON(map[string]any{"description": "after the refresh"})).
			want(t, 200).data(t, &u)
		if u.Description != "after the refresh" || u.Name != e.Name || u.Status != "pending" || !u.UpdatedAt.After(e.UpdatedAt) {
			t.Errorf("update got %+v, want the new description, same name and status, a later updated_at", u)
		}
		c.do(http.MethodPut, fmt.Sprintf("/api/v1/evaluations/%d", e.ID), withJSON(map[string]any{"name": "Renamed"})).want(t, 200).data(t, &u)
		if u.Name != "Renamed" || u.Description != "after the refresh" {
			t.Errorf("rename got %+v, want name Renamed and the description kept", u)
		}
		if nc := checkName(t, c, e.Name); !nc.Available {
			t.Errorf("the old name after a rename got %+v, want available", nc)
		}
		// Renaming to its own name (another case) is no conflict; to another's is.
		c.do(http.MethodPut, fmt.Sprintf("/api/v1/evaluations/%d", e.ID), withJSON(map[string]any{"name": "RENAMED"})).want(t, 200)
		c.do(http.MethodPut, fmt.Sprintf("/api/v1/evaluations/%d", e.ID), withJSON(map[string]any{"name": other.Name})).wantError(t, 409)
		c.do(http.MethodPut, fmt.Sprintf("/api/v1/evaluations/%d", e.ID), withJSON(map[string]any{"name": "bad|name"})).wantError(t, 422, "name")
		c.do(http.MethodPut, fmt.Sprintf("/api/v1/evaluations/%d", e.ID), withJSON(map[string]any{"name": ""})).wantError(t, 422, "name")
		c.do(http.MethodPut, "/api/v1/evaluations/987654", withJSON(map[string]any{"description": "x"})).wantError(t, 404)
	})
	t.Run("create refusals", func(t *testing.T) {
		c := ts.client(t, c.key)
		cases := []struct {
			body   map[string]any
			status int
			says   string
		}{
			{map[string]any{"model_id": m.ID}, 422, "name"},
			{map[string]any{"name": "x"}, 422, "model_id"},
			{map[string]any{"name": "x", "model_id": 987654}, 404, ""},
			{map[string]any{"name": "x", "model_id": m.ID, "question_count": 0}, 422, "question_count"},
			{map[string]any{"name": "x", "model_id": m.ID, "description": strings.Repeat("d", 4001)}, 422, "description"},
		}
		for _, tc := range cases {
			r := c.post("/api/v1/evaluations", tc.body)
			if tc.says == "" {
				r.wantError(t, tc.status)
			} else {
				r.wantError(t, tc.status, tc.says)
			}
		}
	})
}

// TestEvaluationLifecycle: pending → running (start) → completed with
// results after the eval duration, on the FakeClock; refusals while running.
func TestEvaluationLifecycle(t *testing.T) {
	const evalFor = 10 * time.Second
	ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.EvalDuration = evalFor }))
	c := ts.client(t, testKey1)
	m := c.readyModel("bot", fixtureFile(t, "employee-handbook.md"), fixtureFile(t, "warranty-policy.pdf"))
	e := c.createEvaluation(m.ID, "lifecycle")
	path := fmt.Sprintf("/api/v1/evaluations/%d", e.ID)

	var sr store.StartResult
	c.post(path+"/start", nil).want(t, 200).data(t, &sr)
	if sr.ModelID != m.ID || sr.Message == "" {
		t.Errorf("start got %+v, want model_id %d and a message", sr, m.ID)
	}
	got := c.evaluation(e.ID)
	if got.Status != "running" || got.StartedAt == nil || got.Results != nil {
		t.Fatalf("after start got status %s started_at %v results %v, want running, set, null", got.Status, got.StartedAt, got.Results)
	}
	c.post(path+"/start", nil).wantError(t, 409, "running")
	c.do(http.MethodDelete, path).wantError(t, 409, "running")
	c.post(path+"/run-ragas", ragasBody(fixtures.RagasSamples()[:1], nil)).wantError(t, 409)
	if got := c.evaluation(e.ID); got.Status != "running" {
		t.Errorf("after a refused delete got status %s, want running (kept)", got.Status)
	}

	ts.clock.Advance(evalFor - time.Millisecond)
	if got := c.evaluation(e.ID); got.Status != "running" {
		t.Errorf("just before the end got %s, want running", got.Status)
	}
	ts.clock.Advance(time.Millisecond)
	got = c.evaluation(e.ID)
	if got.Status != "completed" || got.Results == nil || len(got.Results.Samples) == 0 || got.CompletedAt == nil {
		t.Fatalf("after the duration got %+v, want completed with results", got)
	}
	if want := testEpoch.Add(evalFor); !got.CompletedAt.Equal(want) {
		t.Errorf("completed_at got %v, want %v", got.CompletedAt, want)
	}
	for _, sc := range []float64{got.Results.Scores.Faithfulness, got.Results.Scores.AnswerRelevancy, got.Results.Scores.ContextPrecision, got.Results.Scores.ContextRecall} {
		if sc < 0 || sc > 1 {
			t.Errorf("score %v is outside 0..1", sc)
		}
	}
	// A finished evaluation can run again, then be deleted.
	c.post(path+"/start", nil).want(t, 200)
	if got := c.evaluation(e.ID); got.Status != "running" || got.Results != nil {
		t.Errorf("a re-run got status %s results %v, want running and no results", got.Status, got.Results)
	}
	ts.clock.Advance(evalFor)
	var del store.DeleteResult
	c.do(http.MethodDelete, path).want(t, 200).data(t, &del)
	if del.Message == "" || del.ID != fmt.Sprint(e.ID) {
		t.Errorf("delete got %+v, want a message and id %d", del, e.ID)
	}
	c.get(path).wantError(t, 404)
	c.do(http.MethodDelete, path).wantError(t, 404)
	c.post(path+"/start", nil).wantError(t, 404)
}

func TestEvaluationOfAModelWithoutDataFails(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	d := c.createDatasetForm([][2]string{{"dataset_name", "links only"}, {"urls", "https://northwind.example/docs"}})
	m := c.createModel(d.ID, "empty-headed")
	e := c.createEvaluation(m.ID, "doomed")
	c.post(fmt.Sprintf("/api/v1/evaluations/%d/start", e.ID), nil).want(t, 200)
	ts.clock.Advance(10 * time.Second)
	got := c.evaluation(e.ID)
	if got.Status != "failed" || got.Results == nil || got.Results.Error == "" {
		t.Errorf("got status %s results %+v, want failed with an error", got.Status, got.Results)
	}
	c.post(fmt.Sprintf("/api/v1/evaluations/%d/start", e.ID), nil).want(t, 200) // failed → running
}

// TestEvaluationListFilterAndPaging sets up one evaluation in each status
// and pages through them.
func TestEvaluationListFilterAndPaging(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	m := c.readyModel("bot", fixtureFile(t, "support-faq.jsonl"))
	empty := c.createModel(c.createDatasetForm([][2]string{{"dataset_name", "urls"}, {"urls", "https://n.example/x"}}).ID, "no data")

	completed := c.createEvaluation(m.ID, "will complete")
	failed := c.createEvaluation(empty.ID, "will fail")
	c.post(fmt.Sprintf("/api/v1/evaluations/%d/start", completed.ID), nil).want(t, 200)
	c.post(fmt.Sprintf("/api/v1/evaluations/%d/start", failed.ID), nil).want(t, 200)
	ts.clock.Advance(time.Minute)
	running := c.createEvaluation(m.ID, "running")
	c.post(fmt.Sprintf("/api/v1/evaluations/%d/start", running.ID), nil).want(t, 200)
	pending := c.createEvaluation(m.ID, "pending")

	all := c.evaluations("?per_page=100")
	if all.Total != len(all.Evaluations) || all.Total < 4+len(fixtures.Default().Set.Evaluations) {
		t.Fatalf("list got total %d with %d items, want at least %d", all.Total, len(all.Evaluations), 4+len(fixtures.Default().Set.Evaluations))
	}
	if !slices.IsSortedFunc(all.Evaluations, func(a, b store.EvaluationView) int { return int(b.ID - a.ID) }) {
		t.Errorf("list is not newest first: %v", ids(all.Evaluations, evaluationID))
	}
	for status, mine := range map[string]int64{"pending": pending.ID, "running": running.ID, "completed": completed.ID, "failed": failed.ID} {
		p := c.evaluations("?per_page=100&status=" + status)
		if p.Total != len(p.Evaluations) || p.Total == 0 {
			t.Errorf("status=%s: total %d items %d, want equal and > 0", status, p.Total, len(p.Evaluations))
		}
		for _, e := range p.Evaluations {
			if e.Status != status {
				t.Errorf("status=%s lists evaluation %d in status %s", status, e.ID, e.Status)
			}
		}
		if !ids(p.Evaluations, evaluationID)[mine] {
			t.Errorf("status=%s does not list evaluation %d", status, mine)
		}
	}
	for _, q := range []string{"status=done", "page=0", "per_page=0", "per_page=101", "page=100001", "page=x"} {
		c.get("/api/v1/evaluations?"+q).wantError(t, 422)
	}

	t.Run("paging", func(t *testing.T) {
		c := ts.client(t, c.key)
		const per = 3
		seen := map[int64]bool{}
		pages := (all.Total + per - 1) / per
		for page := 1; page <= pages+1; page++ {
			p := c.evaluations(fmt.Sprintf("?page=%d&per_page=%d", page, per))
			if p.Page != page || p.PerPage != per || p.Total != all.Total {
				t.Errorf("page %d got page=%d per_page=%d total=%d, want %d %d %d", page, p.Page, p.PerPage, p.Total, page, per, all.Total)
			}
			want := min(per, max(all.Total-(page-1)*per, 0))
			if len(p.Evaluations) != want {
				t.Errorf("page %d has %d items, want %d", page, len(p.Evaluations), want)
			}
			for i, e := range p.Evaluations {
				if seen[e.ID] {
					t.Errorf("evaluation %d on two pages", e.ID)
				}
				seen[e.ID] = true
				if e.ID != all.Evaluations[(page-1)*per+i].ID {
					t.Errorf("page %d item %d got %d, want %d (same order as one page)", page, i, e.ID, all.Evaluations[(page-1)*per+i].ID)
				}
			}
		}
		if len(seen) != all.Total {
			t.Errorf("pages held %d evaluations, want %d", len(seen), all.Total)
		}
		if p := c.evaluations("?page=100000"); len(p.Evaluations) != 0 || p.Total != all.Total {
			t.Errorf("a page past the end got %d items total %d, want 0 and %d", len(p.Evaluations), p.Total, all.Total)
		}
		if p := c.evaluations(""); p.Page != 1 || p.PerPage != 20 {
			t.Errorf("defaults got page %d per_page %d, want 1 and 20", p.Page, p.PerPage)
		}
	})
}

func ragasBody(samples []fixtures.RagasSample, selected []string) map[string]any {
	body := map[string]any{"samples": samples}
	if selected != nil {
		body["selected_questions"] = selected
	}
	return body
}

func TestEvaluationRunRagas(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("bot", fixtureFile(t, "warranty-policy.pdf"))
	samples := fixtures.RagasSamples()
	a := c.createEvaluation(m.ID, "ragas a")
	b := c.createEvaluation(m.ID, "ragas b")

	run := func(id int64, selected []string) store.EvaluationView {
		t.Helper()
		var e store.EvaluationView
		c.post(fmt.Sprintf("/api/v1/evaluations/%d/run-ragas", id), ragasBody(samples, selected)).want(t, 200).data(t, &e)
		return e
	}
	ra, rb := run(a.ID, nil), run(b.ID, nil)
	if ra.Status != "completed" || ra.Results == nil || len(ra.Results.Samples) != len(samples) || ra.QuestionCount != len(samples) {
		t.Fatalf("run-ragas got %+v, want completed with %d scored samples", ra, len(samples))
	}
	if ra.Results.Scores != rb.Results.Scores || !slices.Equal(ra.Results.Samples, rb.Results.Samples) {
		t.Errorf("scores differ between two runs of the same samples:\n%+v\n%+v", ra.Results, rb.Results)
	}
	if again := run(a.ID, nil); again.Results.Scores != ra.Results.Scores {
		t.Errorf("re-run scores got %+v, want %+v", again.Results.Scores, ra.Results.Scores)
	}
	if got := c.evaluation(a.ID); got.Status != "completed" || got.Results == nil || got.Results.Scores != ra.Results.Scores {
		t.Errorf("get after run-ragas got %+v, want the stored scores", got)
	}
	t.Run("selected_questions", func(t *testing.T) {
		c := ts.client(t, c.key)
		sel := []string{samples[2].Question, samples[0].Question}
		e := run(b.ID, sel)
		var got []string
		for _, s := range e.Results.Samples {
			got = append(got, s.Question)
		}
		if !slices.Equal(got, sel) || e.QuestionCount != 2 {
			t.Errorf("scored questions got %v (question_count %d), want %v", got, e.QuestionCount, sel)
		}
		if e.Results.Samples[1].Scores != ra.Results.Samples[0].Scores {
			t.Errorf("a selected sample scored %+v, want %+v as in the full run", e.Results.Samples[1].Scores, ra.Results.Samples[0].Scores)
		}
		c.post(fmt.Sprintf("/api/v1/evaluations/%d/run-ragas", b.ID), ragasBody(samples, []string{"Is this a question of the samples?"})).
			wantError(t, 422, "selected_questions")
	})
	t.Run("empty arrays score the evaluation's own questions", func(t *testing.T) {
		// The vendor's public API docs send exactly this body (D-10).
		for _, body := range []map[string]any{{"samples": []any{}, "selected_questions": []any{}}, {}} {
			ev := c.createEvaluation(m.ID, fmt.Sprintf("ragas empty %d", len(body)))
			var e store.EvaluationView
			c.post(fmt.Sprintf("/api/v1/evaluations/%d/run-ragas", ev.ID), body).want(t, 200).data(t, &e)
			if e.Status != "completed" || e.Results == nil || len(e.Results.Samples) == 0 || e.Results.Error != "" {
				t.Errorf("body %v: got %+v, want completed with the model's own questions scored", body, e)
			}
		}
	})
	t.Run("refusals", func(t *testing.T) {
		c := ts.client(t, c.key)
		path := fmt.Sprintf("/api/v1/evaluations/%d/run-ragas", b.ID)
		c.post(path, map[string]any{"samples": []any{map[string]any{"answer": "no question"}}}).wantError(t, 422, "question")
		c.post("/api/v1/evaluations/987654/run-ragas", ragasBody(samples, nil)).wantError(t, 404)
	})
}

// TestEvaluationFinishedRunIsSeenByEveryAction: a run whose duration has
// passed is finished for start, delete and run-ragas too, even when no read
// happened in between (state is derived from the clock, not from reads).
func TestEvaluationFinishedRunIsSeenByEveryAction(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("bot", fixtureFile(t, "warranty-policy.pdf"))
	actions := []struct {
		name string
		act  func(path string) *apiResponse
	}{
		{"start", func(path string) *apiResponse { return c.post(path+"/start", nil) }},
		{"delete", func(path string) *apiResponse { return c.do(http.MethodDelete, path) }},
		{"run-ragas", func(path string) *apiResponse {
			return c.post(path+"/run-ragas", ragasBody(fixtures.RagasSamples()[:1], nil))
		}},
	}
	for _, a := range actions {
		t.Run(a.name, func(t *testing.T) {
			e := c.createEvaluation(m.ID, "finished before "+a.name)
			path := fmt.Sprintf("/api/v1/evaluations/%d", e.ID)
			c.post(path+"/start", nil).want(t, 200)
			ts.clock.Advance(time.Minute) // past the 10s run; nobody reads it
			a.act(path).want(t, 200)
		})
	}
}
