package spec

import (
	"bytes"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// derivedEffect is what the document's shape says a POST does, without
// reading any mark: a POST to a collection whose items have a path of
// their own (collection/{id}) creates one; a POST to an item's child that
// is no collection (…/{id}/start, …/{id}/run-ragas) starts work on it.
// Other POSTs (the upload, the inference) are not derivable: D-31 decides.
func derivedEffect(paths map[string]*openapi3.PathItem, op Operation) CostEffect {
	if op.Method != http.MethodPost {
		return ""
	}
	for p := range paths {
		if strings.HasPrefix(p, op.Path+"/{") && strings.Count(p[len(op.Path)+1:], "/") == 0 {
			return CostCreates
		}
	}
	if m := actionPath.FindStringSubmatch(op.Path); m != nil && paths[m[1]] != nil {
		return CostStarts
	}
	return ""
}

// actionPath is item/{id}/action, the action a literal segment.
var actionPath = regexp.MustCompile(`^(.*/\{[A-Za-z_]+\})/[a-z][a-z-]*$`)

// TestEveryWriteThatSpendsIsMarked: every operation whose 2xx answer
// creates or starts something carries a cost mark with that effect, every
// POST carries one (a new POST must decide its cost, D-31), and nothing
// else does (a read, an update or a delete spends nothing).
func TestEveryWriteThatSpendsIsMarked(t *testing.T) {
	c := Strict()
	paths := c.Kin.Paths.Map()
	derived := 0
	for _, op := range c.Operations {
		want := derivedEffect(paths, op)
		switch {
		case op.Method != http.MethodPost && op.Cost != nil:
			t.Errorf("%s (%s %s) has x-cost %v: only a POST creates or starts", op.ID, op.Method, op.Path, *op.Cost)
		case op.Method == http.MethodPost && op.Cost == nil:
			t.Errorf("%s (%s %s) has no x-cost mark (D-31): every POST creates or starts something", op.ID, op.Method, op.Path)
		case want != "":
			derived++
			if op.Cost.Effect != want {
				t.Errorf("%s: x-cost effect %q, the document's shape says %q", op.ID, op.Cost.Effect, want)
			}
		case op.Cost != nil && op.Cost.Effect == CostCreates:
			t.Errorf("%s: effect creates, but %s is no collection with items", op.ID, op.Path)
		}
	}
	// Six are derivable (four creates, start and run-ragas); a document
	// whose paths stopped looking like collections would pass vacuously.
	if derived != 6 {
		t.Errorf("derived %d creating or starting operations from the paths, want 6", derived)
	}
}

// TestACreateAnswersTheIDItMade: the run removes what a `creates` call made,
// so its 200 answer must carry the new resource's id (data.id).
func TestACreateAnswersTheIDItMade(t *testing.T) {
	c := Strict()
	for _, op := range c.Costly() {
		if op.Cost.Effect != CostCreates {
			continue
		}
		kin := c.Kin.Paths.Value(op.Path).GetOperation(op.Method)
		media := kin.Responses.Status(200).Value.Content.Get("application/json")
		data := media.Schema.Value.Properties["data"]
		if data == nil || data.Value.Properties["id"] == nil {
			t.Errorf("%s creates %s but its 200 answer has no data.id", op.ID, op.Cost.Kind)
		}
	}
}

// TestEveryKindIsMarked: the budget's kinds and the contract's marks are one
// vocabulary; a kind no operation spends would be a budget nothing counts.
func TestEveryKindIsMarked(t *testing.T) {
	used := map[CostKind][]string{}
	for _, op := range Strict().Costly() {
		used[op.Cost.Kind] = append(used[op.Cost.Kind], op.ID)
	}
	for _, k := range CostKinds() {
		if len(used[k]) == 0 {
			t.Errorf("kind %q: no operation carries it", k)
		}
	}
	want := map[string]Cost{
		"createModel":        {CostModels, CostCreates},
		"createDataset":      {CostDatasets, CostCreates},
		"uploadDatasetFiles": {CostDatasets, CostStarts},
		"createEvaluation":   {CostEvaluations, CostCreates},
		"startEvaluation":    {CostEvaluationRuns, CostStarts},
		"runRagasEvaluation": {CostEvaluationRuns, CostStarts},
		"createConversation": {CostConversations, CostCreates},
		"runInference":       {CostInferences, CostStarts},
	}
	for id, w := range want {
		op, _ := Strict().Operation(id)
		if op.Cost == nil || *op.Cost != w {
			t.Errorf("%s: cost %v, want %v", id, op.Cost, w)
		}
	}
	// The declared view is built from the same document: the same marks.
	if got, want := len(Declared().Costly()), len(Strict().Costly()); got != want {
		t.Errorf("declared view: %d costly operations, strict %d", got, want)
	}
}

func TestCostOfRefusesAMalformedMark(t *testing.T) {
	for _, tc := range []struct {
		name string
		mark any
		want string
	}{
		{"not a mapping", "models", "not a mapping"},
		{"unknown kind", map[string]any{"kind": "trainings", "effect": "creates", "decision": "D-31"}, `kind "trainings"`},
		{"unknown effect", map[string]any{"kind": "models", "effect": "makes", "decision": "D-31"}, `effect "makes"`},
		{"other decision", map[string]any{"kind": "models", "effect": "creates", "decision": "D-12"}, `decision "D-12"`},
		{"extra key", map[string]any{"kind": "models", "effect": "creates", "decision": "D-31", "price": 3}, `key "price"`},
	} {
		op := &openapi3.Operation{OperationID: "op", Extensions: map[string]any{"x-cost": tc.mark}}
		if _, err := costOf(op); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
	got, err := costOf(&openapi3.Operation{Extensions: map[string]any{"x-cost": map[string]any{"kind": "models", "effect": "creates", "decision": "D-31"}}})
	if err != nil || *got != (Cost{CostModels, CostCreates}) {
		t.Errorf("a good mark: got %v, %v", got, err)
	}
	if got, err := costOf(&openapi3.Operation{}); got != nil || err != nil {
		t.Errorf("no mark: got %v, %v", got, err)
	}
}

// TestBuildRefusesAnUnknownCostKind: the mark is read when the contract
// loads, so a misspelt kind stops every binary's start, not a run's end.
func TestBuildRefusesAnUnknownCostKind(t *testing.T) {
	raw := bytes.Replace(Document, []byte("kind: models,"), []byte("kind: model,"), 1)
	if bytes.Equal(raw, Document) {
		t.Fatal("the document has no models mark to misspell")
	}
	if _, err := Build(raw); err == nil || !strings.Contains(err.Error(), `kind "model"`) {
		t.Errorf("Build: got %v, want the unknown kind named", err)
	}
}

func TestCostKindsAreDistinct(t *testing.T) {
	kinds := CostKinds()
	if len(kinds) != 6 {
		t.Errorf("%d kinds, want the six of the budget", len(kinds))
	}
	sorted := slices.Clone(kinds)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(kinds) {
		t.Errorf("repeated kind in %v", kinds)
	}
}
