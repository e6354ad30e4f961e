package spec

import (
	"reflect"
	"slices"
	"testing"
)

// The facts are the reference's, read from the declared view and its
// marks: the success statuses the seed names, §2.1's and §2.4's defaults of
// fields a create sets, the types of the tables, the 401 of §5.3, a delete
// that removes and the refusal §3.1 names; never a constraint a decision
// relaxed (D-11's model status values, D-09's required conversation fields).
func TestFactsAreTheReferences(t *testing.T) {
	facts := Declared().Facts()
	find := func(op string, kind FactKind, ptr string) *Fact {
		for i, f := range facts {
			if f.Op == op && f.Kind == kind && f.Pointer == ptr {
				return &facts[i]
			}
		}
		return nil
	}
	success := map[string]string{}
	for _, f := range facts {
		if f.Kind == FactSuccessStatus {
			success[f.Op] = f.Clause
		}
		if f.Clause == "" {
			t.Errorf("%s rests on no clause", f)
		}
	}
	if want := map[string]string{"createModel": "4.1.3", "deleteModel": "4.1.4", "deleteConversation": "4.2.4", "deleteEvaluation": "4.5.5"}; !reflect.DeepEqual(success, want) {
		t.Errorf("success statuses the reference names: %v, want %v", success, want)
	}
	for _, tc := range []struct {
		op   string
		kind FactKind
		ptr  string
		want any
	}{
		{"createModel", FactDefault, "/data/description", nil},
		{"createModel", FactDefault, "/data/personaId", nil},
		{"createConversation", FactDefault, "/data/title", ""},
		{"getModel", FactType, "/data/id", "integer"},
		{"listEvaluations", FactEnum, "/data/evaluations/*/status", []any{"pending", "running", "completed", "failed"}},
		{"getModel", FactRequired, "/data/name", nil},
		{"getModel", FactGone, "status", "deleteModel"},
		{"listMessages", FactGone, "status", "deleteConversation"},
	} {
		f := find(tc.op, tc.kind, tc.ptr)
		if f == nil || !reflect.DeepEqual(f.Want, tc.want) {
			t.Errorf("%s %s %s: %+v, want %v", tc.op, tc.kind, tc.ptr, f, tc.want)
		}
	}
	if f := find("deleteEvaluation", FactStateRefusal, "status"); f == nil || f.Clause != "3.1" || !slices.Equal(f.Want.([]string), []string{"running"}) {
		t.Errorf("the refusal of §3.1 rule 1: %+v", f)
	}
	for _, notFact := range []struct {
		op   string
		kind FactKind
		ptr  string
	}{
		{"getModel", FactEnum, "/data/status"},           // D-11
		{"getConversation", FactRequired, "/data/title"}, // D-09
		{"createEvaluation", FactDefault, "/data/type"},  // D-09: the request's default
		{"getDataset", FactGone, "status"},               // a dataset delete is soft (§3.3)
	} {
		if f := find(notFact.op, notFact.kind, notFact.ptr); f != nil {
			t.Errorf("a decided rule listed as a fact: %s", f)
		}
	}
	if f := find("getDataset", FactGone, "status"); f != nil {
		t.Errorf("a soft delete removes nothing a read can tell: %s", f)
	}
}
