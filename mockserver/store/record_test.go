package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/ragas"
	"contractkit/mockserver/retrieval"
)

// memLog is a Log in memory.
type memLog struct {
	mu      sync.Mutex
	records []loggedRecord
}

type loggedRecord struct {
	seq  uint64
	data []byte
}

func (l *memLog) Append(b []byte) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	seq := uint64(len(l.records) + 1)
	l.records = append(l.records, loggedRecord{seq, append([]byte(nil), b...)})
	return seq
}

func (l *memLog) all() []loggedRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]loggedRecord(nil), l.records...)
}

// replay applies every record of l to s.
func replay(t *testing.T, s *Store, l *memLog) {
	t.Helper()
	for _, r := range l.all() {
		if err := s.Apply(r.seq, r.data); err != nil {
			t.Fatalf("record %d: %v\n%s", r.seq, err, r.data)
		}
	}
}

func snapshotString(t *testing.T, s *Store) string {
	t.Helper()
	b, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// everyChange makes one change of every kind the store has, on a busy
// account and a second one, including a streamed answer settled after a
// later question, an evaluation whose run ended while nobody looked, and a
// reset.
func everyChange(t *testing.T, s *Store, clock *lifecycle.FakeClock) {
	t.Helper()
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	a, m := busyAccount(t, s)
	d, err := a.CreateDataset(DatasetInput{Name: "more", Upload: Upload{Docs: []retrieval.Doc{doc(t, "a.txt", depotText)}}})
	must(d, err)
	must(a.AddFiles(idString(d.ID), Upload{Docs: []retrieval.Doc{doc(t, "b.md", "# Hours\n\nThe office opens at nine every weekday morning.")}}))
	must(a.AddFiles(idString(d.ID), Upload{Failed: []string{"c.bin"}, Reasons: []string{"unreadable"}}))
	soft, err := a.CreateDataset(DatasetInput{Name: "soft", URLs: []string{"https://soft.example"}})
	must(soft, err)
	must(a.DeleteDataset(idString(soft.ID), false))
	hard, err := a.CreateDataset(DatasetInput{Name: "hard", URLs: []string{"https://hard.example"}})
	must(hard, err)
	must(a.DeleteDataset(idString(hard.ID), true))

	m2, err := a.CreateModel(ModelInput{Name: "second", DatasetID: idString(d.ID)})
	must(m2, err)
	c2, err := a.CreateConversation(m2.ID, "doomed")
	must(c2, err)
	must(a.Ask(Question{Query: "When does the office open?", ModelID: m2.ID, ConversationID: c2.ID}))
	must(a.DeleteModel(idString(m2.ID))) // its conversation goes with it

	c, err := a.CreateConversation(m.ID, "streams")
	must(c, err)
	must(a.RenameConversation(c.ID, "streams, renamed"))
	first, err := a.Ask(Question{Query: "When does the depot open?", ModelID: m.ID, ConversationID: c.ID, Streamed: true})
	must(first, err)
	must(a.Ask(Question{Query: "How many pallets?", ModelID: m.ID, ConversationID: c.ID})) // while the first streams
	dropped, err := a.Ask(Question{Query: "Anything else?", ModelID: m.ID, ConversationID: c.ID, Streamed: true})
	must(dropped, err)
	a.SettleAnswer(c.ID, first.AnswerID, first.Text[:len(first.Text)/2])
	a.SettleAnswer(c.ID, dropped.AnswerID, "") // nothing was sent
	must(a.Ask(Question{Query: "A thread of its own?", ModelID: m.ID}))
	gone, err := a.CreateConversation(m.ID, "gone")
	must(gone, err)
	must(a.DeleteConversation(gone.ID))

	e, err := a.CreateEvaluation(EvaluationInput{Name: "ragas", Type: "ragas", ModelID: m.ID, BenchmarkType: "custom", QuestionCount: 1})
	must(e, err)
	must(a.UpdateEvaluation(idString(e.ID), ptr("ragas (renamed)"), ptr("scored")))
	must(a.RunRagas(idString(e.ID), []ragas.Sample{{Question: "q", Answer: "a", Contexts: []string{"a"}, GroundTruth: "a"}}, nil))
	del, err := a.CreateEvaluation(EvaluationInput{Name: "deleted", Type: "benchmark", ModelID: m.ID, BenchmarkType: "custom", QuestionCount: 1})
	must(del, err)
	must(a.DeleteEvaluation(idString(del.ID)))
	run, err := a.CreateEvaluation(EvaluationInput{Name: "runs out", Type: "benchmark", ModelID: m.ID, BenchmarkType: "custom", QuestionCount: 2})
	must(run, err)
	must(a.StartEvaluation(idString(run.ID)))
	clock.Advance(time.Minute) // the runs end; the training too
	must(a.Evaluation(idString(run.ID)))
	a.FinishAll()

	b := s.Account("account-2")
	b.Advance(time.Hour)
	r := s.Reset("account-2")
	if err := r.Preload(fixtures.Default()); err != nil {
		t.Fatal(err)
	}
	s.Account("account-3") // created on first use
}

// TestLogReplaysEveryChange: a store built from nothing but the records of
// another one's changes, every kind of change among them, is the same
// store, down to the bytes of its snapshot.
func TestLogReplaysEveryChange(t *testing.T) {
	saved, clock := newStore(5*time.Second, 10*time.Second)
	log := &memLog{}
	saved.SetLog(log)
	everyChange(t, saved, clock)
	want := snapshotString(t, saved) // may log the end of a run: replay after

	replica := New(Config{Clock: clock, TrainDuration: 5 * time.Second, EvalDuration: 10 * time.Second, Seed: 1})
	replay(t, replica, log)
	if got := snapshotString(t, replica); got != want {
		t.Errorf("the replayed store's snapshot got\n%s\nwant\n%s", got, want)
	}
	for _, name := range []string{"account-1", "account-2", "account-3"} {
		if got, want := dumpJSON(t, replica.Account(name)), dumpJSON(t, saved.Account(name)); got != want {
			t.Errorf("%s replayed got\n%s\nwant\n%s", name, got, want)
		}
	}
	kinds := map[string]bool{}
	for _, r := range log.all() {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(r.data, &fields); err != nil {
			t.Fatal(err)
		}
		for k := range fields {
			kinds[k] = true
		}
	}
	for _, k := range []string{"whole", "dataset", "files", "model", "conversation", "messages", "evaluation", "removed"} {
		if !kinds[k] {
			t.Errorf("no record holds %q: the test does not make that change", k)
		}
	}
}

// TestLogOverConcurrentSnapshot: a snapshot taken while two accounts
// change, then every record replayed over it, is the store at the end:
// the records the snapshot holds are skipped, the others applied, however
// the two interleaved.
func TestLogOverConcurrentSnapshot(t *testing.T) {
	for round := range 5 {
		// As the server does: the log starts once the accounts are loaded
		// (the snapshot written at start holds them).
		saved, clock := newStore(0, time.Second)
		a, b := preloaded(t, saved, "account-1"), preloaded(t, saved, "account-2")
		start, err := saved.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		log := &memLog{}
		saved.SetLog(log)
		var wg sync.WaitGroup
		for _, acct := range []*Account{a, b} {
			wg.Go(func() {
				for i := range 40 {
					d, err := acct.CreateDataset(DatasetInput{Name: fmt.Sprint("d", i), URLs: []string{"https://x.example"}})
					if err != nil {
						t.Error(err)
						return
					}
					if _, err := acct.AddFiles(idString(d.ID), Upload{Docs: []retrieval.Doc{doc(t, "f.txt", depotText)}}); err != nil {
						t.Error(err)
					}
					if i%3 == 0 {
						if _, err := acct.DeleteDataset(idString(d.ID), i%2 == 0); err != nil {
							t.Error(err)
						}
					}
				}
			})
		}
		var mid []byte
		wg.Go(func() {
			var err error
			if mid, err = saved.Snapshot(); err != nil {
				t.Error(err)
			}
		})
		wg.Wait()
		want := snapshotString(t, saved)

		for name, base := range map[string][]byte{"at start": start, "mid-way": mid} {
			replica := New(Config{Clock: clock, EvalDuration: time.Second, Seed: 1})
			if _, err := replica.Restore(base); err != nil {
				t.Fatal(err)
			}
			replay(t, replica, log)
			if got := snapshotString(t, replica); got != want {
				t.Fatalf("round %d: the snapshot taken %s plus the log got\n%s\nwant\n%s", round, name, got, want)
			}
		}
	}
}

// TestApplyRefuses: a record that does not fit the state it meets says
// what is wrong.
func TestApplyRefuses(t *testing.T) {
	s, _ := newStore(0, time.Second)
	log := &memLog{}
	s.SetLog(log)
	a := s.Account("account-1")
	d, err := a.CreateDataset(DatasetInput{Name: "d", URLs: []string{"https://x.example"}})
	if err != nil {
		t.Fatal(err)
	}
	records := log.all()
	for _, tc := range []struct{ name, record, says string }{
		{"not json", `{"account":`, "not a state record"},
		{"unknown field", `{"account":"account-1","api_key":"k"}`, "api_key"},
		{"no account", `{"last_id":1}`, "no account"},
		{"never created", `{"account":"account-9","last_id":1}`, "before it was created"},
		{"files of no dataset", `{"account":"account-1","last_id":1,"files":{"dataset":77,"from":0,"files":[]}}`, "dataset 77"},
		{"counter goes back", `{"account":"account-1","last_id":0}`, "go back"},
		{"id never handed out", fmt.Sprintf(`{"account":"account-1","last_id":%d,"model":{"id":%d}}`, d.ID, d.ID+5), "never handed out"},
		{"removed twice", fmt.Sprintf(`{"account":"account-1","last_id":%d,"removed":{"models":[%d]}}`, d.ID, d.ID), "there is none"},
		{"message nowhere", fmt.Sprintf(`{"account":"account-1","last_id":%d,"messages":{"conversation":"c","at":0,"messages":[]}}`, d.ID), "no such conversation"},
		{"clock goes back", fmt.Sprintf(`{"account":"account-1","last_id":%d,"clock_offset_ns":-5}`, d.ID), "goes back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replica, _ := newStore(0, time.Second)
			for _, r := range records {
				if err := replica.Apply(r.seq, r.data); err != nil {
					t.Fatal(err)
				}
			}
			err := replica.Apply(uint64(len(records)+1), []byte(tc.record))
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Apply got %v, want an error mentioning %q", err, tc.says)
			}
		})
	}
}

// TestRestoresVersion1: a snapshot written before the state log (version
// 1, no log_seq) is read, and every record is applied over it.
func TestRestoresVersion1(t *testing.T) {
	saved, _ := newStore(0, time.Second)
	busyAccount(t, saved)
	data := strings.Replace(snapshotString(t, saved), `"version":2`, `"version":1`, 1)
	data = strings.ReplaceAll(data, `"log_seq":0,`, "")
	restored, _ := newStore(0, time.Second)
	if _, err := restored.Restore([]byte(data)); err != nil {
		t.Fatalf("a version 1 snapshot got %v", err)
	}
	if got, want := dumpJSON(t, restored.Account("account-1")), dumpJSON(t, saved.Account("account-1")); got != want {
		t.Errorf("restored got\n%s\nwant\n%s", got, want)
	}
}
