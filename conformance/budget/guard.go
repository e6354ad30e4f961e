package budget

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"contractkit/spec"
)

// ErrProtected is wrapped by the error Admit returns for a write to a
// resource declared with Reuse.
var ErrProtected = errors.New("a reused resource is never changed")

// ProtectedError names the reused resource a call would have changed.
type ProtectedError struct {
	Ref
	Operation string
}

func (e *ProtectedError) Error() string {
	return fmt.Sprintf("%s would change %s %s, which the run reuses and never changes (--reuse-model)", e.Operation, e.Kind, e.ID)
}

// Unwrap makes errors.Is(err, ErrProtected) true.
func (e *ProtectedError) Unwrap() error { return ErrProtected }

// Call is one request as Admit judges it before it is sent.
type Call struct {
	// Op is the operation the request is routed to.
	Op spec.Operation
	// Touches are the resources it would change (Resources.Touches).
	Touches []Ref
	// Refusal marks a request meant to be refused (an invalid create, a
	// wrong key): it spends nothing. When the server accepts it all the
	// same, the caller records what it made with Unplanned.
	Refusal bool
}

// Admit is what the client asks before every request: nil, nil for a call
// that spends nothing (a read, an update, a delete, a refusal); a ticket
// for a costly call within the budget; a *SpentError beyond it, and for a
// refusal of a kind the server has already made from a refusal once the
// budget is spent; a *ProtectedError for any write, refusals included, to a
// reused resource (a server that wrongly accepted it would change the
// account's own).
func (l *Ledger) Admit(c Call) (*Ticket, error) {
	if c.Op.Method != http.MethodGet && c.Op.Method != http.MethodHead {
		for _, r := range c.Touches {
			if l.Reused(r.Kind, r.ID) {
				return nil, &ProtectedError{Ref: r, Operation: c.Op.ID}
			}
		}
	}
	switch {
	case c.Op.Cost == nil:
		return nil, nil
	case c.Refusal:
		return nil, l.refusal(c.Op.Cost.Kind)
	}
	return l.Take(c.Op.Cost.Kind)
}

// Resources maps the id parameter of each resource the contract creates
// to its kind: "model_id" → models, "dataset_id" → datasets, ... A
// resource is a collection path whose POST creates (x-cost effect
// `creates`) and whose items have a path of their own, collection/{param}.
type Resources map[string]Kind

// ResourcesOf reads the resources of c.
func ResourcesOf(c *spec.Contract) Resources {
	r := Resources{}
	for _, op := range c.Costly() {
		if op.Cost.Effect != spec.CostCreates {
			continue
		}
		for p := range c.Kin.Paths.Map() {
			rest, ok := strings.CutPrefix(p, op.Path+"/{")
			if ok && strings.HasSuffix(rest, "}") && !strings.Contains(rest, "/") {
				r[strings.TrimSuffix(rest, "}")] = op.Cost.Kind
			}
		}
	}
	return r
}

// Touches lists the resources a request to op would change, from values:
// its path parameters and the top-level fields of its body or form. A write
// changes the resource its path names (a delete, an update, an evaluation
// start); an operation that starts work of one kind changes the resource of
// that kind its fields name (files added to the dataset `dataset_id`
// names). A field that only refers to a resource (a conversation's
// `model_id`) changes nothing. A read touches nothing.
func (r Resources) Touches(op spec.Operation, values map[string]string) []Ref {
	if op.Method == http.MethodGet || op.Method == http.MethodHead {
		return nil
	}
	var out []Ref
	for name, v := range values {
		k, ok := r[name]
		if !ok || v == "" {
			continue
		}
		inPath := strings.Contains(op.Path, "{"+name+"}")
		startsOnIt := op.Cost != nil && op.Cost.Effect == spec.CostStarts && op.Cost.Kind == k
		if inPath || startsOnIt {
			out = append(out, Ref{Kind: k, ID: v})
		}
	}
	slices.SortFunc(out, func(a, b Ref) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID)) })
	return out
}
