package spec

import (
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// CostKind is what an operation creates or starts that the account pays
// for: the vocabulary of the document's `x-cost` marks (decision D-31) and
// the kinds of the conformance suite's budget (--budget KIND=N), one to one.
type CostKind string

// The kinds of cost. Each names what a run counts, in the plural a budget
// reads ("models=1").
const (
	// CostModels is a new model: on the service, a paid fine-tune.
	CostModels CostKind = "models"
	// CostDatasets is a dataset made, or files added to one: storage and
	// the indexing of the files into the knowledge graph.
	CostDatasets CostKind = "datasets"
	// CostEvaluations is a new evaluation (a record; its runs are apart).
	CostEvaluations CostKind = "evaluations"
	// CostEvaluationRuns is an evaluation run: each calls a language model.
	CostEvaluationRuns CostKind = "evaluation-runs"
	// CostConversations is a new conversation thread.
	CostConversations CostKind = "conversations"
	// CostInferences is one inference: one language-model answer.
	CostInferences CostKind = "inferences"
)

// CostKinds lists every kind, in the order reports show them.
func CostKinds() []CostKind {
	return []CostKind{CostModels, CostDatasets, CostEvaluations, CostEvaluationRuns, CostConversations, CostInferences}
}

// CostEffect is what a successful call of a marked operation leaves.
type CostEffect string

const (
	// CostCreates: a new resource, whose id the answer carries; a run that
	// made it removes it.
	CostCreates CostEffect = "creates"
	// CostStarts: work on an existing resource (or on none), nothing new to
	// remove: an evaluation run, an inference, files added to a dataset.
	CostStarts CostEffect = "starts"
)

// Cost is an operation's `x-cost` mark: `{kind, effect, decision: D-31}`.
// The mark adds no rule to what a server must do; it tells a client what a
// call spends.
type Cost struct {
	Kind   CostKind
	Effect CostEffect
}

// costDecision is the DECISIONS.md row every x-cost mark names.
const costDecision = "D-31"

// costOf reads the x-cost mark of op: nil without one, an error for a mark
// that is not {kind, effect, decision} with a known kind and effect.
func costOf(op *openapi3.Operation) (*Cost, error) {
	raw, ok := op.Extensions["x-cost"]
	if !ok {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: x-cost is not a mapping {kind, effect, decision}", op.OperationID)
	}
	for k := range m {
		if k != "kind" && k != "effect" && k != "decision" {
			return nil, fmt.Errorf("%s: x-cost has key %q; a mark is {kind, effect, decision}", op.OperationID, k)
		}
	}
	kind, _ := m["kind"].(string)
	effect, _ := m["effect"].(string)
	decision, _ := m["decision"].(string)
	c := &Cost{Kind: CostKind(kind), Effect: CostEffect(effect)}
	switch {
	case !slices.Contains(CostKinds(), c.Kind):
		return nil, fmt.Errorf("%s: x-cost kind %q is not one of %v", op.OperationID, kind, CostKinds())
	case c.Effect != CostCreates && c.Effect != CostStarts:
		return nil, fmt.Errorf("%s: x-cost effect %q is not %q or %q", op.OperationID, effect, CostCreates, CostStarts)
	case decision != costDecision:
		return nil, fmt.Errorf("%s: x-cost decision %q, want %s", op.OperationID, decision, costDecision)
	}
	return c, nil
}

// Costly lists the operations that carry a cost mark, in Operations order.
func (c *Contract) Costly() []Operation {
	var out []Operation
	for _, op := range c.Operations {
		if op.Cost != nil {
			out = append(out, op)
		}
	}
	return out
}
