package budget

import (
	"encoding/json"
	"strings"
	"testing"

	"contractkit/spec"
)

// run is a small run: a model trained and removed, one denied; a dataset
// left; an evaluation run; two inferences; a conversation a refusal made.
func run(t *testing.T) *Ledger {
	l := NewLedger(mustParse(t, "models=1,evaluation-runs=1"))
	tk, _ := l.Take(spec.CostModels)
	tk.Created("21")
	if _, err := l.Take(spec.CostModels); err == nil {
		t.Fatal("second model taken")
	}
	l.Removed(spec.CostModels, "21")
	tk, _ = l.Take(spec.CostDatasets)
	tk.Created("8")
	tk, _ = l.Take(spec.CostEvaluationRuns)
	tk.Started("41")
	for range 2 {
		tk, _ = l.Take(spec.CostInferences)
		tk.Started("")
	}
	l.Unplanned(spec.CostConversations, "c-9")
	return l
}

func TestRowsShowEveryKind(t *testing.T) {
	rows := run(t).Rows()
	if len(rows) != len(spec.CostKinds()) {
		t.Fatalf("%d rows, want one per kind", len(rows))
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.String())
	}
	want := []string{
		"models: budget 1, taken 1, created 1, started 0, removed 1, denied 1, left behind: none",
		"datasets: budget -, taken 1, created 1, started 0, removed 0, denied 0, left behind: 8",
		"evaluations: budget -, taken 0, created 0, started 0, removed 0, denied 0, left behind: none",
		"evaluation-runs: budget 1, taken 1, created 0, started 1, removed 0, denied 0, left behind: none",
		"conversations: budget -, taken 1, created 1, started 0, removed 0, denied 0 (1 by a request meant to be refused), left behind: c-9",
		"inferences: budget -, taken 2, created 0, started 2, removed 0, denied 0, left behind: none",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The JSON report carries rows as they are: lists, never null.
	b, err := json.Marshal(rows[2])
	if err != nil || strings.Contains(string(b), "null") {
		t.Errorf("json: %s, %v", b, err)
	}
}
