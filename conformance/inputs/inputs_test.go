package inputs

import (
	"slices"
	"strings"
	"testing"

	"contractkit/spec"
)

func catalog(t *testing.T) *Catalog {
	t.Helper()
	return Read(spec.Strict(), spec.Declared())
}

// The order of the faults is the contract's x-fault-order mark: the key
// first, on §5.3; the rest decided by D-48.
func TestFaultOrderIsTheContracts(t *testing.T) {
	c := catalog(t)
	if len(c.Faults) != 8 || c.Faults[0].Fault != FaultKey || c.Faults[0].Seed != "5.3" || !slices.Equal(c.Faults[0].Statuses, []int{401}) {
		t.Fatalf("faults: %+v", c.Faults)
	}
	for _, f := range c.Faults {
		if f.Decision != "D-48" {
			t.Errorf("%s rests on %q, want D-48", f.Fault, f.Decision)
		}
	}
	if c.Rank(FaultSchema) > c.Rank(FaultReference) || c.Rank(FaultReference) > c.Rank(FaultConflict) {
		t.Error("a schema fault before an unknown id before a conflict")
	}
}

// Resources, their id forms, machines and collections come from the
// paths, the schemas and the marks.
func TestKindsAreRead(t *testing.T) {
	c := catalog(t)
	want := map[string]string{"model_id": "number", "dataset_id": "number", "evaluation_id": "number", "conversation_id": "uuid"}
	for param, form := range want {
		k := c.Kind(param)
		if k == nil || k.IDForm != form {
			t.Errorf("%s: %+v, want ids of form %s", param, k, form)
		}
	}
	if m := c.Kind("evaluation_id").Machine; m == nil || !slices.Equal(m.States, []string{"completed", "failed", "pending", "running"}) {
		t.Errorf("the evaluation's machine: %+v", m)
	}
	if k := c.Kind("conversation_id"); !slices.Equal(k.Colls, []string{"messages"}) || k.Scope != "model_id" {
		t.Errorf("conversations: %+v", k)
	}
}

// One operation's dimensions name each shape the issue lists: values at
// their bounds, the at-least-one group of a body and a query parameter,
// encodings, UUID near misses, pairs of faults with their winner,
// repeats, the states of a conversation.
func TestTheRenameVariesEveryWay(t *testing.T) {
	c := catalog(t)
	var names []string
	for _, d := range c.DeriveOp(c.Op("renameConversation")) {
		names = append(names, d.Name)
	}
	for _, want := range []string{
		`body:title = "" (empty)`, "body:title = 255 characters (maxLength)", "body:title = 256 characters (over maxLength)",
		"body:title / query:title: query:title only", "body:title / query:title: none of them (refused)",
		"Content-Type: application/json; charset=utf-8", "Accept: */*", "query:title outside ASCII",
		"path:conversation_id → a live id in upper case", "path:conversation_id → a live id with one character changed",
		"key + schema → 401", "schema + reference → 422", "rule + reference → 422", "a reference refusal sent again",
		"a conversation with messages", "a conversation after runInference", "a conversation after renameConversation",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("no dimension %q in\n  %s", want, strings.Join(names, "\n  "))
		}
	}
	for _, n := range names {
		if strings.Contains(n, "syntax + schema") || strings.Contains(n, "burst") {
			t.Errorf("%s: a malformed body has no schema to break; a write is not sent in a burst", n)
		}
	}
}

// Every dimension of the contract has a name of its own within its
// operation, and every operation has some of each family that applies.
func TestEveryOperationHasDimensions(t *testing.T) {
	c := catalog(t)
	for _, op := range c.Ops {
		fams := map[Family]int{}
		for _, d := range c.DeriveOp(op) {
			fams[d.Family]++
		}
		if fams[FamilyEncoding] == 0 || fams[FamilyRepeat] == 0 {
			t.Errorf("%s: %v", op.ID, fams)
		}
		if len(op.IDs) > 0 && fams[FamilyID] == 0 {
			t.Errorf("%s names a resource and has no id dimension", op.ID)
		}
	}
}

// Every x-lenient reading of the contract (D-21) is a dimension of its
// operation: a field under another name, a value of another JSON type, a
// file part under another name, each sent on its own.
func TestEveryReadingIsADimension(t *testing.T) {
	c := catalog(t)
	readings := 0
	for _, op := range c.Ops {
		names := map[string]bool{}
		for _, d := range c.DeriveOp(op) {
			if d.Family == FamilyReading {
				names[d.Name] = true
			}
		}
		for _, r := range spec.Strict().Readings(op.ID) {
			readings++
			in := "body"
			if op.Media == "multipart/form-data" {
				in = "form"
			}
			if !names[ReadingName(in, r)] {
				t.Errorf("%s: the reading %+v has no dimension (have %v)", op.ID, r, names)
			}
		}
	}
	if readings < 6 {
		t.Fatalf("%d readings in the contract: the marks were not read", readings)
	}
	var conv []string
	for _, d := range c.DeriveOp(c.Op("createConversation")) {
		if d.Family == FamilyReading {
			conv = append(conv, d.Name)
		}
	}
	if !slices.Equal(conv, []string{"body:model_id as a string (x-lenient, D-21)"}) {
		t.Errorf("createConversation's readings: %q", conv)
	}
}

// Relations before every delete and read: each kind whose records name a
// resource (x-predict on-delete) gives it a state of its own, which every
// operation touching the resource meets.
func TestRelationsAreStates(t *testing.T) {
	c := catalog(t)
	want := map[string][]string{
		"deleteModel":   {"a model with conversations", "a model with evaluations"},
		"getModel":      {"a model with conversations", "a model with evaluations"},
		"deleteDataset": {"a dataset with models"},
		"getDataset":    {"a dataset with models"},
	}
	for op, states := range want {
		var names []string
		for _, d := range c.DeriveOp(c.Op(op)) {
			if d.Family == FamilyState && d.State.By != "" {
				names = append(names, d.Name)
			}
		}
		for _, s := range states {
			if !slices.Contains(names, s) {
				t.Errorf("%s: no state dimension %q (has %q)", op, s, names)
			}
		}
	}
}
