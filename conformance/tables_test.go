package conformance

import (
	"slices"
	"strings"
	"testing"

	"contractkit/spec"
)

func ids(ops []spec.Operation) []string {
	var out []string
	for _, op := range ops {
		out = append(out, op.ID)
	}
	slices.Sort(out)
	return out
}

// The unknown-id checks cover every operation that names a resource, by a
// path id or by a required body or query id, and no other.
func TestIDOperationsAreDerived(t *testing.T) {
	got := ids(idOperations(spec.Strict()))
	for _, op := range spec.Strict().Operations {
		byPath := strings.Contains(op.Path, "{")
		if byPath && !slices.Contains(got, op.ID) {
			t.Errorf("%s names a resource in its path but has no unknown-id check", op.ID)
		}
	}
	for _, id := range []string{"createModel", "listConversations", "createConversation", "uploadDatasetFiles", "runInference", "createEvaluation"} {
		if !slices.Contains(got, id) {
			t.Errorf("%s names a resource in its body or query but has no unknown-id check", id)
		}
	}
	for _, id := range []string{"listModels", "listDatasets", "listEvaluations", "checkEvaluationName", "createDataset"} {
		if slices.Contains(got, id) {
			t.Errorf("%s names no resource but has an unknown-id check", id)
		}
	}
	if want := []string{"checkEvaluationName", "listDatasets", "listEvaluations", "listModels"}; !slices.Equal(ids(freeReads(spec.Strict())), want) {
		t.Errorf("freeReads = %v, want %v", ids(freeReads(spec.Strict())), want)
	}
}

// Every operation that names a resource has an isolation check, its
// sentence from its place and its summary; what it needs made, something
// creates; a delete's resource can be read back.
func TestIsolationChecks(t *testing.T) {
	c := spec.Strict()
	seen := map[string]bool{}
	for _, row := range isolationChecks(c) {
		op := row.op
		if seen[op.ID] {
			t.Errorf("two isolation checks of %s", op.ID)
		}
		seen[op.ID] = true
		for _, param := range isolationNeeds(c, op) {
			r := c.ResourceNamed(param)
			if _, ok := createOf(c, r); !ok {
				t.Errorf("the isolation check of %s needs a %s, which nothing creates", op.ID, param)
			}
		}
		if how, r := isolationJudgeOf(c, op); how == isoRefusedAndKept {
			if _, ok := keptRead(c, r); !ok {
				t.Errorf("the isolation check of %s cannot read the %s back", op.ID, r.Word())
			}
		}
	}
	for _, op := range c.Operations {
		b, why := isolationOf(c, op)
		if (b == "") == (why == "") {
			t.Errorf("%s: isolation check %q and exemption %q: want exactly one", op.ID, b, why)
		}
		if seen[op.ID] != (b != "") {
			t.Errorf("%s: the check %q is not among the checks run", op.ID, b)
		}
	}
	for id, want := range map[string]string{
		"getModel":           "MUST NOT let another account read a model",
		"listModels":         "MUST NOT show a model in another account's list",
		"listConversations":  "MUST NOT show a model's conversations to another account",
		"deleteEvaluation":   "MUST NOT let another account delete an evaluation",
		"startEvaluation":    "MUST NOT let another account start a run of an evaluation",
		"listMessages":       "MUST NOT let another account list the messages of a conversation",
		"runRagasEvaluation": "MUST NOT let another account score an evaluation's samples with RAGAS metrics",
		"createDataset":      "",
	} {
		op, _ := c.Operation(id)
		if got, _ := isolationOf(c, op); got != want {
			t.Errorf("isolationOf(%s) = %q, want %q", id, got, want)
		}
	}
	var order []spec.Role
	for _, row := range isolationChecks(c) {
		role, _ := c.Place(row.op)
		order = append(order, role)
	}
	if i := slices.Index(order, spec.RoleDelete); i < 0 || slices.ContainsFunc(order[i:], func(r spec.Role) bool { return r != spec.RoleDelete }) {
		t.Errorf("the deletes do not run last: %v", order)
	}

	// How each is judged follows from the operation's place.
	for id, want := range map[string]isolationJudge{
		"getModel": isoRefused, "renameConversation": isoRefused, "uploadDatasetFiles": isoRefused, "startEvaluation": isoRefused,
		"listModels": isoUnlisted, "listConversations": isoUnlisted, "listEvaluations": isoUnlisted,
		"deleteModel": isoRefusedAndKept, "deleteConversation": isoRefusedAndKept,
		"createModel": isoCreateRefused, "createEvaluation": isoCreateRefused,
		"runInference": isoStreamRefused,
	} {
		op, _ := spec.Strict().Operation(id)
		if got, _ := isolationJudgeOf(spec.Strict(), op); got != want {
			t.Errorf("isolationJudgeOf(%s) = %d, want %d", id, got, want)
		}
	}
	conv := spec.Strict().ResourceNamed("conversation_id")
	if read, _ := keptRead(spec.Strict(), conv); read.ID != "listMessages" {
		t.Errorf("a conversation is read back by %s, want listMessages (it has no GET of its own)", read.ID)
	}
	op, _ := spec.Strict().Operation("listConversations")
	if got := isolationNeeds(spec.Strict(), op); !slices.Equal(got, []string{"model_id", "conversation_id"}) {
		t.Errorf("listConversations needs %v, want its model (scope) and the conversation it must not list", got)
	}
}

// Every delete check is of a DELETE of a resource's item, and an area's
// flow registers each exactly once.
func TestEveryDeleteCheckIsRegistered(t *testing.T) {
	code, out := runChild(t, "--list")
	if code != ExitPass {
		t.Fatalf("--list: exit %d\n%s", code, out)
	}
	for param, dc := range deleteChecks {
		if _, ok := spec.Strict().OperationAt(spec.RoleDelete, param); !ok {
			t.Errorf("deleteChecks names %s, which is no resource the contract deletes (a DELETE on its item)", param)
		}
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if strings.HasSuffix(line, "› "+dc.behaviour) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the delete check of %s (%q) is registered %d times, want once: call deletionSpecs in the flow that makes the resource", param, dc.behaviour, n)
		}
	}
}
