package store

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/retrieval"
)

const depotText = "The depot opens at 6 am. Deliveries arrive before noon every weekday. The loading bay holds twelve pallets."

// busyAccount gives an account one of everything, some of it in flight:
// fixtures, a soft-deleted dataset, a model still training, a conversation
// with an exchange, a running evaluation and an advanced clock.
func busyAccount(t *testing.T, s *Store) (*Account, ModelView) {
	t.Helper()
	a := preloaded(t, s, "account-1")
	preloaded(t, s, "account-2")
	d, err := a.CreateDataset(DatasetInput{Name: "depot", Tags: []string{"ops"}, Upload: Upload{Docs: []retrieval.Doc{doc(t, "depot.txt", depotText)}}})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := a.CreateDataset(DatasetInput{Name: "gone", URLs: []string{"https://gone.example"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.DeleteDataset(idString(gone.ID), false); err != nil {
		t.Fatal(err)
	}
	m, err := a.CreateModel(ModelInput{Name: "depot bot", DatasetID: idString(d.ID), Description: ptr("answers")})
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.CreateConversation(m.ID, "opening hours")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Ask(Question{Query: "When does the depot open?", ModelID: m.ID, ConversationID: c.ID}); err != nil {
		t.Fatal(err)
	}
	e, err := a.CreateEvaluation(EvaluationInput{Name: "depot eval", Type: "benchmark", ModelID: m.ID, BenchmarkType: "custom", QuestionCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.StartEvaluation(idString(e.ID)); err != nil {
		t.Fatal(err)
	}
	a.Advance(2 * time.Second)
	return a, m
}

func dumpJSON(t *testing.T, a *Account) string {
	t.Helper()
	b, err := json.Marshal(a.Dump())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSnapshotRoundTrip: a restored store shows what the saved one showed,
// answers the same questions the same way, goes on with the same ids, and
// a training or evaluation in flight finishes as it would have.
func TestSnapshotRoundTrip(t *testing.T) {
	saved, clock := newStore(5*time.Second, 10*time.Second)
	a, m := busyAccount(t, saved)
	data, err := saved.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	restored := New(Config{Clock: clock, TrainDuration: 5 * time.Second, EvalDuration: 10 * time.Second, Seed: 1})
	if _, err := restored.Restore(data); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"account-1", "account-2"} {
		if !restored.Has(name) {
			t.Fatalf("the restored store has no %s", name)
		}
		if got, want := dumpJSON(t, restored.Account(name)), dumpJSON(t, saved.Account(name)); got != want {
			t.Errorf("%s restored got\n%s\nwant\n%s", name, got, want)
		}
	}
	b := restored.Account("account-1")
	if got := *b.Models()[len(b.Models())-1].Status; got == lifecycle.StatusReady {
		t.Fatalf("the model in training is %s right after the restore, want still training", got)
	}

	q := Question{Query: "How many pallets does the loading bay hold?", ModelID: m.ID}
	want, err := a.Ask(q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Ask(q)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want.Text || got.ThreadID != want.ThreadID || !strings.Contains(got.Text, "twelve") {
		t.Errorf("restored answer got %q (thread %s), want %q (thread %s)", got.Text, got.ThreadID, want.Text, want.ThreadID)
	}
	dv, err := b.CreateDataset(DatasetInput{Name: "next", URLs: []string{"https://n.example"}})
	if err != nil {
		t.Fatal(err)
	}
	if dw, _ := a.CreateDataset(DatasetInput{Name: "next", URLs: []string{"https://n.example"}}); dv.ID != dw.ID {
		t.Errorf("the next id after the restore got %d, want %d", dv.ID, dw.ID)
	}
	if fresh := restored.Account("account-3"); fresh.block != 2 {
		t.Errorf("a new account after the restore got id block %d, want 2 (after the restored ones)", fresh.block)
	}

	clock.Advance(time.Minute) // past the training and the evaluation
	if got, want := dumpJSON(t, b), dumpJSON(t, a); got != want {
		t.Errorf("after the runs ended the restored account got\n%s\nwant\n%s", got, want)
	}
	if got, err := b.Model(idString(m.ID)); err != nil || got.Status == nil || *got.Status != lifecycle.StatusReady {
		t.Errorf("the restored model's training got %v (%v), want ready once its time passed", got.Status, err)
	}
}

// TestRestoreRefuses: data that is not a snapshot of this version, or that
// contradicts itself, is an error that says what is wrong, and the store
// stays empty.
func TestRestoreRefuses(t *testing.T) {
	saved, _ := newStore(0, time.Second)
	busyAccount(t, saved)
	good, err := saved.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// edit returns the good snapshot changed by fn.
	edit := func(fn func(snap map[string]any, acct map[string]any)) string {
		var snap map[string]any
		if err := json.Unmarshal(good, &snap); err != nil {
			t.Fatal(err)
		}
		fn(snap, snap["accounts"].([]any)[0].(map[string]any))
		out, err := json.Marshal(snap)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	first := func(acct map[string]any, list string) map[string]any { return acct[list].([]any)[0].(map[string]any) }
	cases := []struct {
		name, data, says string
	}{
		{"empty", "", "not a state snapshot"},
		{"cut short", string(good[:len(good)/2]), "not a state snapshot"},
		{"not an object", `[1, 2]`, "not a state snapshot"},
		{"no version", `{"accounts": []}`, "no version"},
		{"future version", `{"version": 3, "accounts": [], "more": true}`, "version 3 is not supported"},
		{"log_seq in version 1", edit(func(s, a map[string]any) { s["version"] = 1; a["log_seq"] = 7 }), "log_seq"},
		{"unknown field", edit(func(_, a map[string]any) { a["api_key"] = "secret" }), "api_key"},
		{"wrong type", edit(func(_, a map[string]any) { a["last_id"] = "many" }), "last_id"},
		{"account twice", edit(func(s, a map[string]any) { s["accounts"] = append(s["accounts"].([]any), a) }), "listed twice"},
		{"no name", edit(func(_, a map[string]any) { a["name"] = "" }), "no name"},
		{"shared block", edit(func(s, a map[string]any) { s["accounts"].([]any)[1].(map[string]any)["id_block"] = a["id_block"] }), "id block"},
		{"id never handed out", edit(func(_, a map[string]any) { first(a, "models")["id"] = 999 }), "model id 999"},
		{"repeated id", edit(func(_, a map[string]any) { first(a, "evaluations")["id"] = first(a, "datasets")["id"] }), "evaluation id"},
		{"last id outside the block", edit(func(_, a map[string]any) { a["last_id"] = 2_000_000_001 }), "outside"},
		{"unknown state", edit(func(_, a map[string]any) { first(a, "evaluations")["status"] = "paused" }), "paused"},
		{"conversation without id", edit(func(_, a map[string]any) { first(a, "conversations")["id"] = "" }), "conversation id"},
		{"negative clock", edit(func(_, a map[string]any) { a["clock_offset_ns"] = -1 }), "negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newStore(0, time.Second)
			_, err := s.Restore([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Restore got %v, want an error mentioning %q", err, tc.says)
			}
			if s.Has("account-1") || s.Has("account-2") {
				t.Error("a refused snapshot left accounts in the store")
			}
		})
	}
	t.Run("store in use", func(t *testing.T) {
		s, _ := newStore(0, time.Second)
		s.Account("account-9")
		if _, err := s.Restore(good); err == nil || !strings.Contains(err.Error(), "already has accounts") {
			t.Fatalf("Restore into a used store got %v, want a refusal", err)
		}
		if s.Has("account-1") {
			t.Error("the refused restore added accounts")
		}
	})
}
