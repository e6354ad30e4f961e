package mockserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/store"
)

// seedStatesBody names every state a seed can name: a model in each of
// the four, an evaluation in each of the four, a conversation with
// messages and a deleted dataset beside a live one.
func seedStatesBody() map[string]any {
	file := func(name, text string) []any { return []any{map[string]any{"name": name, "content": text}} }
	return map[string]any{
		"datasets": []any{
			map[string]any{"key": "kb", "name": "Lunar base handbook", "files": file("rules.md", "# Rules\n\nThe airlock code changes every 19 days.\n")},
			map[string]any{"key": "old", "name": "Old handbook", "deleted": true, "files": file("old.md", "# Old rules\n\nThe airlock code changed every 40 days.\n")},
		},
		"models": []any{
			map[string]any{"key": "queued", "name": "Queued bot", "dataset": "kb", "state": "pending"},
			map[string]any{"key": "trainee", "name": "Trainee bot", "dataset": "kb", "state": "training"},
			map[string]any{"key": "bot", "name": "Base bot", "dataset": "kb", "state": "ready"},
			map[string]any{"key": "broken", "name": "Broken bot", "dataset": "kb", "state": "failed"},
			map[string]any{"key": "orphan", "name": "Old bot", "dataset": "old"},
		},
		"conversations": []any{map[string]any{"model": "bot", "title": "Airlock", "messages": []any{
			map[string]any{"role": "user", "content": "How often does the code change?"},
			map[string]any{"role": "assistant", "content": "Every 19 days."},
			map[string]any{"role": "user", "content": "Since when?"},
		}}},
		"evaluations": []any{
			map[string]any{"name": "Waiting check", "model": "bot", "status": "pending"},
			map[string]any{"name": "Running check", "model": "bot", "status": "running"},
			map[string]any{"name": "Done check", "model": "bot", "status": "completed"},
			map[string]any{"name": "Failed check", "model": "bot", "status": "failed"},
		},
	}
}

// TestSeedStatesReadBackExactly: every state a seed names reads back so at
// once, through the API's reads (one record and the lists), before any
// time passes; then each moves on the account's clock from there, as a
// record created through the API would.
func TestSeedStatesReadBackExactly(t *testing.T) {
	const train, eval = time.Hour, time.Hour
	ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.TrainDuration, c.EvalDuration = train, eval }))
	c := ts.client(t, testKey1)
	var got seededView
	c.post("/admin/seed", seedStatesBody()).want(t, 200).data(t, &got)
	id := func(r json.RawMessage) int64 {
		var n int64
		if err := json.Unmarshal(r, &n); err != nil {
			t.Fatalf("id %s: %v", r, err)
		}
		return n
	}
	models := map[string]int64{}
	for _, m := range got.Models {
		models[m.Key] = id(m.ID)
	}
	evals := map[string]int64{}
	for _, e := range got.Evaluations {
		evals[e.Name] = id(e.ID)
	}

	modelsAre := func(when string, want map[string]string) {
		t.Helper()
		listed := map[int64]string{}
		for _, m := range c.models() {
			listed[m.ID] = str(m.Status)
		}
		for key, status := range want {
			if one := str(c.model(models[key]).Status); one != status || listed[models[key]] != status {
				t.Errorf("%s: model %q reads %q (listed %q), want %q", when, key, one, listed[models[key]], status)
			}
		}
	}
	evalsAre := func(when string, want map[string]string) {
		t.Helper()
		for name, status := range want {
			one := c.evaluation(evals[name]).Status
			filtered := c.evaluations("?status=" + status)
			found := false
			for _, e := range filtered.Evaluations {
				found = found || e.ID == evals[name]
			}
			if one != status || !found {
				t.Errorf("%s: evaluation %q reads %q (in the %s filter: %v), want %q", when, name, one, status, found, status)
			}
		}
	}

	// At once: no time has passed on the fake clock.
	modelsAre("at once", map[string]string{"queued": "pending", "trainee": "training", "bot": "ready", "broken": "failed", "orphan": "ready"})
	evalsAre("at once", map[string]string{"Waiting check": "pending", "Running check": "running", "Done check": "completed", "Failed check": "failed"})

	convs := c.conversations(models["bot"], "")
	if len(convs) != 1 || convs[0].Title != "Airlock" || convs[0].TotalMessages != 3 || convs[0].Message != "Since when?" || convs[0].MessageTimestamp == nil {
		t.Fatalf("the seeded conversation reads %+v, want Airlock with 3 messages, the last one shown", convs)
	}
	var msgs []store.MessageView
	c.get("/api/v1/user/conversations/"+convs[0].ID+"/messages").want(t, 200).data(t, &msgs)
	var said []string
	for _, m := range msgs {
		said = append(said, m.Role+": "+m.Content)
	}
	if want := "user: How often does the code change?|assistant: Every 19 days.|user: Since when?"; strings.Join(said, "|") != want {
		t.Errorf("the seeded messages read %q, want %q", strings.Join(said, "|"), want)
	}

	deleted := id(got.Datasets[1].ID)
	c.dataset(deleted).wantError(t, 404)
	for _, d := range c.datasets() {
		if d.ID == deleted {
			t.Errorf("the deleted dataset %d is listed", deleted)
		}
	}
	var dump store.Dump
	c.get("/admin/state").want(t, 200).data(t, &dump)
	if len(dump.DeletedDatasets) != 1 || dump.DeletedDatasets[0].ID != deleted || len(dump.Datasets) != 1 {
		t.Errorf("/admin/state holds %d live and %d deleted datasets, want 1 and 1 (%d)", len(dump.Datasets), len(dump.DeletedDatasets), deleted)
	}
	// Its model still answers from it, as after a soft delete (§3.3).
	if res := c.ask(map[string]any{"query": "How often did the airlock code change?", "model_id": models["orphan"]}); !strings.Contains(res.Text, "40 days") {
		t.Errorf("the model on the deleted dataset answers %q, want its file's 40 days", res.Text)
	}

	// Then on the account's clock, from where each was seeded.
	advance := func(by time.Duration) {
		t.Helper()
		c.post(fmt.Sprintf("/admin/advance?by=%s", by), nil).want(t, 200)
	}
	advance(train / 10)
	modelsAre("a tenth later", map[string]string{"queued": "training", "trainee": "training", "bot": "ready", "broken": "failed"})
	evalsAre("a tenth later", map[string]string{"Waiting check": "pending", "Running check": "running"})
	advance(train * 8 / 10)
	modelsAre("nine tenths later", map[string]string{"queued": "training", "trainee": "ready"})
	advance(train / 10)
	modelsAre("a whole training later", map[string]string{"queued": "ready", "trainee": "ready", "broken": "failed"})
	evalsAre("a whole run later", map[string]string{"Waiting check": "pending", "Running check": "completed", "Done check": "completed", "Failed check": "failed"})
	if e := c.evaluation(evals["Running check"]); e.Results == nil {
		t.Error("the seeded running evaluation completed without results")
	}
	c.do("DELETE", fmt.Sprintf("/api/v1/evaluations/%d", evals["Running check"])).want(t, 200) // running no more: deleted (§3.1)
}

// TestSeedRefusesAStateItWouldNotShow: with --train-duration 0 a training
// has ended before it is read, with --eval-duration 0 a run: a seed naming
// such a state is refused, naming the field and the flag, and nothing is
// loaded.
func TestSeedRefusesAStateItWouldNotShow(t *testing.T) {
	ts := newTestServer(t, withoutFixtures(), withConfig(func(c *Config) { c.TrainDuration, c.EvalDuration = 0, 0 }))
	c := ts.client(t, testKey1)
	body := seedStatesBody()
	c.post("/admin/seed", body).wantError(t, 422, `models[0].state: "pending"`, "--train-duration")
	body["models"] = body["models"].([]any)[2:]
	body["evaluations"] = body["evaluations"].([]any)[:2]
	c.post("/admin/seed", body).wantError(t, 422, `evaluations[1].status: "running"`, "--eval-duration")
	if n := len(c.models()); n != 0 {
		t.Errorf("refused seeds loaded %d models", n)
	}
	body["evaluations"] = body["evaluations"].([]any)[:1]
	c.post("/admin/seed", body).want(t, 200)
}
