package mockserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// seedBody is a small set: a dataset with one inline file, a ready and a
// failed model on it, a conversation and a completed evaluation.
func seedBody() map[string]any {
	return map[string]any{
		"datasets": []any{map[string]any{
			"key": "kb", "name": "Lunar base handbook", "description": "Rules of the base", "tags": []string{"moon"},
			"files": []any{map[string]any{"name": "rules.md", "content": "# Rules\n\nThe airlock code changes every 19 days.\n"}},
		}},
		"models": []any{
			map[string]any{"key": "bot", "name": "Base bot", "dataset": "kb", "state": "ready"},
			map[string]any{"key": "broken", "name": "Broken bot", "dataset": "kb", "state": "failed"},
		},
		"conversations": []any{map[string]any{"model": "bot", "title": "Airlock", "messages": []any{
			map[string]any{"role": "user", "content": "How often does the code change?"},
			map[string]any{"role": "assistant", "content": "Every 19 days."},
		}}},
		"evaluations": []any{map[string]any{"name": "Base check", "model": "bot", "status": "completed"}},
	}
}

type seededView struct {
	Datasets, Models, Conversations, Evaluations []struct {
		Key, Title, Name string
		ID               json.RawMessage
	}
}

// TestSeedLoadsRecordsAtRunTime: an account that starts empty (a fixture
// rule of none) is seeded by one call; the records are served as any
// others, the file answers questions, and the answer gives their ids.
func TestSeedLoadsRecordsAtRunTime(t *testing.T) {
	ts := newTestServer(t, withOpenKeys("empty-*"), withConfig(func(c *Config) { c.FixtureRules = []FixtureRule{{Pattern: "empty-*"}} }))
	c := ts.client(t, "empty-1")
	if n := len(c.models()); n != 0 {
		t.Fatalf("the account starts with %d models, want none", n)
	}
	var got seededView
	c.post("/admin/seed", seedBody()).want(t, 200).data(t, &got)
	if len(got.Datasets) != 1 || len(got.Models) != 2 || len(got.Conversations) != 1 || len(got.Evaluations) != 1 {
		t.Fatalf("seed answer %+v: want the ids of every record", got)
	}
	models := c.models()
	if len(models) != 2 || string(got.Models[0].ID) != fmt.Sprint(models[0].ID) || got.Models[0].Key != "bot" {
		t.Fatalf("models %v, seed answer %+v", modelNames(models), got.Models)
	}
	if st := str(c.model(models[1].ID).Status); st != "failed" {
		t.Errorf("the broken model is %s, want failed", st)
	}
	ev := c.evaluations("")
	if ev.Total != 1 || ev.Evaluations[0].Status != "completed" || ev.Evaluations[0].QuestionCount != ts.srv.defaults.newEvaluation.QuestionCount {
		t.Errorf("evaluations %+v: want the completed one, with the contract's default question count", ev)
	}
	if convs := c.conversations(models[0].ID, ""); len(convs) != 1 || convs[0].TotalMessages != 2 {
		t.Errorf("conversations %+v", convs)
	}
	res := c.ask(map[string]any{"query": "How often does the airlock code change?", "model_id": models[0].ID})
	if !strings.Contains(res.Text, "19 days") {
		t.Errorf("the answer %q does not come from the seeded file", res.Text)
	}

	// Seeding adds; replace=true empties the account first.
	body := seedBody()
	body["evaluations"] = []any{map[string]any{"name": "Second check", "model": "bot"}}
	body["datasets"].([]any)[0].(map[string]any)["name"] = "Second handbook"
	c.post("/admin/seed", body).want(t, 200)
	if n := len(c.models()); n != 4 {
		t.Errorf("after a second seed %d models, want 4", n)
	}
	c.post("/admin/seed?replace=true", seedBody()).want(t, 200)
	if n := len(c.models()); n != 2 {
		t.Errorf("after a replacing seed %d models, want 2", n)
	}
}

// TestSeedRefusalsNameTheField: a record that breaks the contract or the
// set's rules is refused with a 422 naming the field, and nothing is
// loaded.
func TestSeedRefusalsNameTheField(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	before := len(c.models())
	with := func(change func(map[string]any)) map[string]any {
		b := seedBody()
		change(b)
		return b
	}
	dataset := func(b map[string]any) map[string]any { return b["datasets"].([]any)[0].(map[string]any) }
	for _, tc := range []struct {
		name string
		body any
		says []string
	}{
		{"a name over the contract's length", with(func(b map[string]any) { dataset(b)["name"] = strings.Repeat("n", 256) }), []string{"datasets[0].name", "maximum string length", "dataset_name of createDataset"}},
		{"a model name over it", with(func(b map[string]any) { b["models"].([]any)[1].(map[string]any)["name"] = strings.Repeat("m", 300) }), []string{"models[1].name", "model_name of createModel"}},
		{"a question count under the minimum", with(func(b map[string]any) { b["evaluations"].([]any)[0].(map[string]any)["question_count"] = -3 }), []string{"evaluations[0].question_count", "createEvaluation"}},
		{"an evaluation name with a symbol", with(func(b map[string]any) { b["evaluations"].([]any)[0].(map[string]any)["name"] = "Check #1" }), []string{"evaluations[0].name"}},
		{"a state no model has", with(func(b map[string]any) { b["models"].([]any)[0].(map[string]any)["state"] = "done" }), []string{"models[0]", "state \"done\""}},
		{"an unknown dataset key", with(func(b map[string]any) { b["models"].([]any)[0].(map[string]any)["dataset"] = "nope" }), []string{"models[0]", "unknown dataset \"nope\""}},
		{"an unknown field", with(func(b map[string]any) { b["models"].([]any)[0].(map[string]any)["titel"] = "x" }), []string{"unknown field", "titel"}},
		{"an empty file", with(func(b map[string]any) {
			dataset(b)["files"] = []any{map[string]any{"name": "empty.txt", "content": ""}}
		}), []string{"datasets[0].files[0]"}},
		{"a file name with a path", with(func(b map[string]any) {
			dataset(b)["files"] = []any{map[string]any{"name": "../x.md", "content": "text"}}
		}), []string{"datasets[0].files[0].name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.post("/admin/seed", tc.body).wantError(t, 422, tc.says...)
		})
	}
	// An evaluation name the account already has: a conflict, nothing loaded.
	c.post("/admin/seed", with(func(b map[string]any) {
		b["evaluations"].([]any)[0].(map[string]any)["name"] = c.evaluations("").Evaluations[0].Name
	})).wantError(t, 409, "already used")
	c.post("/admin/seed?replace=maybe", seedBody()).wantError(t, 422, "replace")
	c.post("/admin/seed", "{", withHeader("Content-Type", "application/json")).wantError(t, 400)
	c.get("/admin/seed").wantError(t, 405)
	if n := len(c.models()); n != before {
		t.Errorf("after refused seeds the account has %d models, want %d", n, before)
	}
}
