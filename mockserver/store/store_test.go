package store

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver/apierr"
	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/retrieval"
)

var epoch = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

func newStore(train, eval time.Duration) (*Store, *lifecycle.FakeClock) {
	clock := lifecycle.NewFakeClock(epoch)
	return New(Config{Clock: clock, TrainDuration: train, EvalDuration: eval, Seed: 1}), clock
}

func doc(t *testing.T, name, text string) retrieval.Doc {
	t.Helper()
	d, err := retrieval.Extract(name, strings.NewReader(text), retrieval.Limits{})
	if err != nil {
		t.Fatalf("extract %s: %v", name, err)
	}
	return d
}

func wantCode(t *testing.T, err error, code apierr.Code) {
	t.Helper()
	e, ok := err.(*apierr.Error)
	if !ok || e.Code != code {
		t.Fatalf("error got %v, want %s", err, code)
	}
}

// TestPreloadStates: the preload places each fixture in the state it names,
// through the same paths an API client takes.
func TestPreloadStates(t *testing.T) {
	s, _ := newStore(5*time.Second, 10*time.Second)
	a := s.Account("account-1")
	b := fixtures.Default()
	if err := a.Preload(b); err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, m := range a.Models() {
		byName[m.Name] = *m.Status
	}
	for _, fm := range b.Set.Models {
		// The state a fixture names is the status it reads (a training one
		// is past its queue), at once.
		if want := fm.State; byName[fm.Name] != want {
			t.Errorf("model %q: status got %q, want %q", fm.Name, byName[fm.Name], want)
		}
	}
	page := a.Evaluations("", 1, 100)
	evals := map[string]EvaluationView{}
	for _, e := range page.Evaluations {
		evals[e.Name] = e
	}
	for _, fe := range b.Set.Evaluations {
		e, ok := evals[fe.Name]
		if !ok || e.Status != fe.Status {
			t.Errorf("evaluation %q: status got %q, want %q", fe.Name, e.Status, fe.Status)
			continue
		}
		if (fe.Status == fixtures.StatusPending) != (e.Results == nil) {
			t.Errorf("evaluation %q (%s): results got %v", fe.Name, fe.Status, e.Results)
		}
	}
	if got, want := len(a.Datasets()), len(b.Set.Datasets); got != want {
		t.Errorf("datasets got %d, want %d", got, want)
	}
	d := a.Dump()
	if got, want := len(d.Conversations), len(b.Set.Conversations); got != want {
		t.Errorf("conversations got %d, want %d", got, want)
	}
	for i, c := range d.Conversations {
		if c.TotalMessages != len(c.Messages) || c.TotalMessages == 0 || c.MessageTimestamp == nil {
			t.Errorf("conversation %d: total %d, %d messages, timestamp %v", i, c.TotalMessages, len(c.Messages), c.MessageTimestamp)
		}
	}
}

// TestIDsDifferAcrossAccounts: one account can never address another's
// resource by an id that exists in both.
func TestIDsDifferAcrossAccounts(t *testing.T) {
	s, _ := newStore(0, time.Second)
	seen := map[int64]string{}
	for _, name := range []string{"account-1", "account-2"} {
		a := s.Account(name)
		if err := a.Preload(fixtures.Default()); err != nil {
			t.Fatal(err)
		}
		for _, d := range a.Datasets() {
			if prev, ok := seen[d.ID]; ok {
				t.Errorf("dataset id %d in %s and %s", d.ID, prev, name)
			}
			seen[d.ID] = name
		}
		for _, m := range a.Models() {
			if prev, ok := seen[m.ID]; ok {
				t.Errorf("model id %d in %s and %s", m.ID, prev, name)
			}
			seen[m.ID] = name
		}
	}
	a2 := s.Account("account-2")
	for id, owner := range seen {
		if owner != "account-1" {
			continue
		}
		if _, err := a2.Model(fmt.Sprint(id)); err == nil {
			t.Errorf("account-2 reads account-1's model %d", id)
		}
		if _, err := a2.Dataset(fmt.Sprint(id)); err == nil {
			t.Errorf("account-2 reads account-1's dataset %d", id)
		}
	}
}

// TestFinishedRunSeenByActions: the state of a run whose time is up is
// derived on every action, not only on reads.
func TestFinishedRunSeenByActions(t *testing.T) {
	s, clock := newStore(0, 10*time.Second)
	a := s.Account("account-1")
	d, err := a.CreateDataset(DatasetInput{Name: "d", Upload: Upload{Docs: []retrieval.Doc{doc(t, "n.txt", "The standard warranty period is 24 months from delivery.\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.CreateModel(ModelInput{Name: "m", DatasetID: fmt.Sprint(d.ID)})
	if err != nil {
		t.Fatal(err)
	}
	newRun := func(name string) string {
		e, err := a.CreateEvaluation(EvaluationInput{Name: name, ModelID: m.ID, Type: "ragas", BenchmarkType: "beir", QuestionCount: 3})
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprint(e.ID)
		if _, err := a.StartEvaluation(id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	start, del := newRun("start"), newRun("delete")
	_, err = a.DeleteEvaluation(del)
	wantCode(t, err, apierr.Conflict)
	clock.Advance(10 * time.Second)
	if _, err := a.StartEvaluation(start); err != nil {
		t.Errorf("start after the run ended: %v", err)
	}
	if _, err := a.DeleteEvaluation(del); err != nil {
		t.Errorf("delete after the run ended: %v", err)
	}
}

func TestAdvanceIsPerAccount(t *testing.T) {
	s, _ := newStore(5*time.Second, time.Second)
	one, two := s.Account("account-1"), s.Account("account-2")
	for _, a := range []*Account{one, two} {
		if err := a.Preload(fixtures.Default()); err != nil {
			t.Fatal(err)
		}
	}
	status := func(a *Account) map[string]string {
		out := map[string]string{}
		for _, m := range a.Models() {
			out[m.Name] = *m.Status
		}
		return out
	}
	if got := one.FinishAll(); got != 6*time.Second {
		t.Errorf("FinishAll advanced %v, want 6s", got)
	}
	if got := status(one)["Northwind HR Assistant"]; got != "ready" {
		t.Errorf("account-1's training model got %s, want ready", got)
	}
	if got := status(two)["Northwind HR Assistant"]; got != "training" {
		t.Errorf("account-2's training model got %s, want training", got)
	}
	fresh := s.Reset("account-1")
	if len(fresh.Models()) != 0 || fresh.Clock().Offset() != 0 || s.Account("account-1") != fresh {
		t.Error("Reset did not replace the account by an empty one")
	}
}

// TestConcurrentAccountUse exercises one account from many goroutines
// (run with -race): names stay unique, counts add up.
func TestConcurrentAccountUse(t *testing.T) {
	s, clock := newStore(time.Second, time.Second)
	a := s.Account("account-1")
	d, err := a.CreateDataset(DatasetInput{Name: "d", Upload: Upload{Docs: []retrieval.Doc{doc(t, "n.txt", "Employees receive 27 days of paid leave per year.\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.CreateModel(ModelInput{Name: "m", DatasetID: fmt.Sprint(d.ID)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.CreateConversation(m.ID, "t")
	if err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 8, 10
	var wg sync.WaitGroup
	var mu sync.Mutex
	conflicts := 0
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				// Every worker tries the same names: exactly one wins each.
				_, err := a.CreateEvaluation(EvaluationInput{Name: fmt.Sprint("eval ", i), ModelID: m.ID, Type: "ragas", BenchmarkType: "beir", QuestionCount: 2})
				if err != nil {
					mu.Lock()
					conflicts++
					mu.Unlock()
				}
				if _, err := a.Ask(Question{Query: "paid leave", ModelID: m.ID, ConversationID: c.ID}); err != nil {
					t.Errorf("worker %d: ask: %v", w, err)
				}
				_ = a.Evaluations("running", 1, 5)
				_ = a.Dump()
				if i%4 == 0 {
					clock.Advance(100 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	if got := a.Evaluations("", 1, 100).Total; got != rounds {
		t.Errorf("evaluations got %d, want %d (one per name)", got, rounds)
	}
	if conflicts != (workers-1)*rounds {
		t.Errorf("name conflicts got %d, want %d", conflicts, (workers-1)*rounds)
	}
	msgs, err := a.Messages(c.ID)
	if err != nil || len(msgs) != 2*workers*rounds {
		t.Errorf("messages got %d (%v), want %d", len(msgs), err, 2*workers*rounds)
	}
}
