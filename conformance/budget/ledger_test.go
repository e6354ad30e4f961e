package budget

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"contractkit/spec"
)

func mustParse(t *testing.T, s string) Budget {
	t.Helper()
	b, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTakeStopsAtTheCap(t *testing.T) {
	l := NewLedger(mustParse(t, "models=2"))
	for i := range 2 {
		if _, err := l.Take(spec.CostModels); err != nil {
			t.Fatalf("take %d: %v", i+1, err)
		}
	}
	_, err := l.Take(spec.CostModels)
	var spent *SpentError
	if !errors.As(err, &spent) || !errors.Is(err, ErrSpent) || spent.Limit != 2 || spent.Kind != spec.CostModels {
		t.Fatalf("third take: got %v, want a SpentError for models=2", err)
	}
	if want := "the budget for models is spent (--budget models=2)"; err.Error() != want {
		t.Errorf("reason: %q, want %q", err, want)
	}
	if l.Available(spec.CostModels) {
		t.Error("Available after the cap")
	}
	// An uncapped kind never runs out.
	for range 1000 {
		if _, err := l.Take(spec.CostInferences); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := NewLedger(mustParse(t, "all=0")).Take(spec.CostConversations); err == nil ||
		err.Error() != "the budget allows no conversations (--budget conversations=0)" {
		t.Errorf("all=0: got %v", err)
	}
}

// TestTakeIsExactUnderConcurrency: explore and the written checks share
// the ledger; a cap of 7 lets exactly 7 of 200 racing calls through.
func TestTakeIsExactUnderConcurrency(t *testing.T) {
	l := NewLedger(mustParse(t, "evaluation-runs=7"))
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := 0
	for i := range 200 {
		wg.Go(func() {
			tk, err := l.Take(spec.CostEvaluationRuns)
			if err != nil {
				return
			}
			tk.Started(fmt.Sprint(i))
			mu.Lock()
			got++
			mu.Unlock()
		})
	}
	wg.Wait()
	if got != 7 {
		t.Errorf("%d calls got through a cap of 7", got)
	}
	r := l.Rows()[slices.IndexFunc(l.Rows(), func(r Row) bool { return r.Kind == string(spec.CostEvaluationRuns) })]
	if r.Taken != 7 || r.Denied != 193 || len(r.Started) != 7 {
		t.Errorf("row: %+v", r)
	}
}

func TestRefundGivesTheCallBackAndLostDoesNot(t *testing.T) {
	l := NewLedger(mustParse(t, "models=1"))
	tk, _ := l.Take(spec.CostModels)
	tk.Refund()
	tk.Created("9") // settled already: ignored
	tk2, err := l.Take(spec.CostModels)
	if err != nil {
		t.Fatalf("after a refund: %v", err)
	}
	tk2.Lost()
	if _, err := l.Take(spec.CostModels); err == nil {
		t.Error("a lost call was given back: a hanging server could start a fine-tune per timeout")
	}
	left := l.Left()
	if len(left) != 1 || !left[0].Lost || left[0].Kind != spec.CostModels {
		t.Errorf("Left() = %v, want one lost model", left)
	}
	if got := left[0].String(); got != "models: unknown (a call that got no answer may have made one)" {
		t.Errorf("lost: %q", got)
	}
	var nilTicket *Ticket
	nilTicket.Refund() // a call Admit let through free has no ticket
}

func TestLeftBehindIsCreatedNotRemovedNotReused(t *testing.T) {
	l := NewLedger(Budget{})
	for _, id := range []string{"11", "12", "13"} {
		tk, _ := l.Take(spec.CostModels)
		tk.Created(id)
	}
	tk, _ := l.Take(spec.CostDatasets)
	tk.Created("5")
	l.Reuse(spec.CostModels, "13") // a create answered with the reused id
	if !l.Removed(spec.CostModels, "11") {
		t.Error("Removed(11) = false for a model the run made")
	}
	if l.Removed(spec.CostModels, "11") {
		t.Error("removed twice")
	}
	if l.Removed(spec.CostModels, "4") {
		t.Error("Removed(4) = true for a model the run did not make")
	}
	l.Unplanned(spec.CostConversations, "c-1")
	var got []string
	for _, o := range l.Left() {
		got = append(got, o.String())
	}
	if want := []string{"models 12", "datasets 5", "conversations c-1"}; !slices.Equal(got, want) {
		t.Errorf("Left() = %v, want %v", got, want)
	}
	if !l.Reused(spec.CostModels, "13") || l.Reused(spec.CostModels, "12") {
		t.Error("Reused")
	}
}

func TestStartedNamesNoResourceToRemove(t *testing.T) {
	l := NewLedger(Budget{})
	tk, _ := l.Take(spec.CostInferences)
	tk.Started("")
	tk, _ = l.Take(spec.CostEvaluationRuns)
	tk.Started("41")
	if left := l.Left(); len(left) != 0 {
		t.Errorf("starts left %v behind", left)
	}
}
