package budget

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"contractkit/spec"
)

func op(t *testing.T, id string) spec.Operation {
	t.Helper()
	o, ok := spec.Strict().Operation(id)
	if !ok {
		t.Fatalf("no operation %s", id)
	}
	return o
}

func TestResourcesOfTheContract(t *testing.T) {
	got := ResourcesOf(spec.Strict())
	want := Resources{
		"model_id": spec.CostModels, "dataset_id": spec.CostDatasets,
		"evaluation_id": spec.CostEvaluations, "conversation_id": spec.CostConversations,
	}
	if !maps.Equal(got, want) {
		t.Errorf("ResourcesOf = %v, want %v", got, want)
	}
}

func TestTouches(t *testing.T) {
	r := ResourcesOf(spec.Strict())
	for _, tc := range []struct {
		op     string
		values map[string]string
		want   []Ref
	}{
		{"deleteModel", map[string]string{"model_id": "4"}, []Ref{{spec.CostModels, "4"}}},
		{"getModel", map[string]string{"model_id": "4"}, nil},
		{"deleteDataset", map[string]string{"dataset_id": "3"}, []Ref{{spec.CostDatasets, "3"}}},
		// Files added to a dataset change it, though its id is a form field.
		{"uploadDatasetFiles", map[string]string{"dataset_id": "3"}, []Ref{{spec.CostDatasets, "3"}}},
		// A model a new record or an answer refers to is not changed.
		{"createModel", map[string]string{"dataset_id": "3", "model_name": "x"}, nil},
		{"createConversation", map[string]string{"model_id": "4"}, nil},
		{"createEvaluation", map[string]string{"model_id": "4"}, nil},
		{"runInference", map[string]string{"model_id": "4", "conversation_id": "c"}, nil},
		{"startEvaluation", map[string]string{"evaluation_id": "41"}, []Ref{{spec.CostEvaluations, "41"}}},
		{"renameConversation", map[string]string{"conversation_id": "c"}, []Ref{{spec.CostConversations, "c"}}},
		{"deleteModel", map[string]string{"model_id": ""}, nil},
	} {
		if got := r.Touches(op(t, tc.op), tc.values); !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: Touches = %v, want %v", tc.op, tc.values, got, tc.want)
		}
	}
}

func TestAdmit(t *testing.T) {
	r := ResourcesOf(spec.Strict())
	l := NewLedger(mustParse(t, "all=0"))
	l.Reuse(spec.CostModels, "4")
	l.Reuse(spec.CostDatasets, "3")

	// Reads and the refusals of a read-only run spend nothing.
	for _, c := range []Call{
		{Op: op(t, "getModel"), Touches: r.Touches(op(t, "getModel"), map[string]string{"model_id": "4"})},
		{Op: op(t, "listModels")},
		{Op: op(t, "createModel"), Refusal: true},
		{Op: op(t, "deleteModel"), Touches: r.Touches(op(t, "deleteModel"), map[string]string{"model_id": "999999"})},
	} {
		if tk, err := l.Admit(c); tk != nil || err != nil {
			t.Errorf("%s: got %v, %v; want free", c.Op.ID, tk, err)
		}
	}
	// A read-only run sends no costly call meant to succeed.
	for _, id := range []string{"createModel", "createDataset", "uploadDatasetFiles", "createEvaluation", "startEvaluation", "runRagasEvaluation", "createConversation", "runInference"} {
		if _, err := l.Admit(Call{Op: op(t, id)}); !errors.Is(err, ErrSpent) {
			t.Errorf("all=0, %s: got %v, want ErrSpent", id, err)
		}
	}
	// The reused model and its dataset are never written, not even by a
	// request meant to be refused (a server could accept it).
	for _, c := range []Call{
		{Op: op(t, "deleteModel"), Touches: r.Touches(op(t, "deleteModel"), map[string]string{"model_id": "4"}), Refusal: true},
		{Op: op(t, "uploadDatasetFiles"), Touches: r.Touches(op(t, "uploadDatasetFiles"), map[string]string{"dataset_id": "3"})},
		{Op: op(t, "deleteDataset"), Touches: r.Touches(op(t, "deleteDataset"), map[string]string{"dataset_id": "3"})},
	} {
		_, err := l.Admit(c)
		var pe *ProtectedError
		if !errors.As(err, &pe) || !errors.Is(err, ErrProtected) {
			t.Errorf("%s: got %v, want ErrProtected", c.Op.ID, err)
		}
	}
	_, err := l.Admit(Call{Op: op(t, "deleteModel"), Touches: []Ref{{spec.CostModels, "4"}}})
	if want := "deleteModel would change models 4, which the run reuses and never changes (--reuse-model)"; err == nil || err.Error() != want {
		t.Errorf("reason: %v, want %q", err, want)
	}

	// Within a budget a costly call gets a ticket of its kind.
	l2 := NewLedger(mustParse(t, "models=1"))
	tk, err := l2.Admit(Call{Op: op(t, "createModel")})
	if err != nil || tk == nil || tk.Kind() != spec.CostModels {
		t.Fatalf("models=1, createModel: got %v, %v", tk, err)
	}
}

// TestRefusalsStopOnceTheServerMakesWhatItShouldRefuse: a server that
// accepts an invalid model create would start a fine-tune per refusal
// check; after the first, with the budget spent, the next is stopped.
func TestRefusalsStopOnceTheServerMakesWhatItShouldRefuse(t *testing.T) {
	l := NewLedger(mustParse(t, "models=0,datasets=1"))
	refusal := Call{Op: op(t, "createModel"), Refusal: true}
	if _, err := l.Admit(refusal); err != nil {
		t.Fatalf("a first refusal under models=0: %v", err)
	}
	l.Unplanned(spec.CostModels, "21") // the server accepted it
	_, err := l.Admit(refusal)
	if !errors.Is(err, ErrSpent) {
		t.Fatalf("the next refusal: %v, want it stopped", err)
	}
	want := "the budget allows no models (--budget models=0), and the server made models 21 from a request meant to be refused: another could make one more"
	if err.Error() != want {
		t.Errorf("reason:\n%s\nwant\n%s", err, want)
	}
	// Within a budget a refusal the server accepted spends it first.
	refuseDataset := Call{Op: op(t, "createDataset"), Refusal: true}
	if _, err := l.Admit(refuseDataset); err != nil {
		t.Fatal(err)
	}
	l.Unplanned(spec.CostDatasets, "8")
	if _, err := l.Admit(Call{Op: op(t, "createDataset")}); !errors.Is(err, ErrSpent) {
		t.Errorf("a planned dataset after an unplanned one spent datasets=1: %v", err)
	}
	if _, err := l.Admit(refuseDataset); !errors.Is(err, ErrSpent) {
		t.Errorf("a second dataset refusal: %v, want it stopped", err)
	}
	// An uncapped kind never stops a refusal.
	free := NewLedger(Budget{})
	free.Unplanned(spec.CostModels, "21")
	if _, err := free.Admit(refusal); err != nil {
		t.Errorf("no budget: %v", err)
	}
}
