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

func TestIsolationChecks(t *testing.T) {
	seen := map[string]bool{}
	for _, row := range isolationChecks {
		op, ok := spec.Strict().Operation(row.op)
		switch {
		case !ok:
			t.Errorf("isolationChecks names %s, no operation of the contract", row.op)
			continue
		case seen[row.op]:
			t.Errorf("isolationChecks names %s twice", row.op)
		case isolationExempt[row.op] != "":
			t.Errorf("%s has an isolation check and an exemption", row.op)
		}
		seen[row.op] = true
		for _, param := range isolationNeeds(spec.Strict(), op) {
			r := spec.Strict().ResourceNamed(param)
			if _, ok := createOf(spec.Strict(), r); !ok {
				t.Errorf("the isolation check of %s needs a %s, which nothing creates", row.op, param)
			}
		}
		if how, r := isolationJudgeOf(spec.Strict(), op); how == isoRefusedAndKept {
			if _, ok := keptRead(spec.Strict(), r); !ok {
				t.Errorf("the isolation check of %s cannot read the %s back", row.op, r.Word())
			}
		}
	}
	for id, why := range isolationExempt {
		if strings.TrimSpace(why) == "" {
			t.Errorf("the isolation exemption of %s gives no reason", id)
		}
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
	for id, dc := range deleteChecks {
		op, ok := spec.Strict().Operation(id)
		if role, _ := spec.Strict().Place(op); !ok || role != spec.RoleDelete {
			t.Errorf("deleteChecks names %s, which is not the DELETE of a resource's item", id)
		}
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if strings.HasSuffix(line, "› "+dc.behaviour) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the delete check of %s (%q) is registered %d times, want once: call deletionSpecs in the flow that makes the resource", id, dc.behaviour, n)
		}
	}
}
