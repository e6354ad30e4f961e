package inputs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Fault is one thing wrong with a request, as x-fault-order names it.
type Fault string

// The faults of the contract's x-fault-order mark (D-48).
const (
	FaultKey       Fault = "key"        // no key, or one the server did not give
	FaultMedia     Fault = "media-type" // a body of another media type
	FaultSize      Fault = "size"       // a body past its bound
	FaultSyntax    Fault = "syntax"     // a body that is not JSON, a form that cannot be read
	FaultSchema    Fault = "schema"     // a value the declared schema refuses
	FaultRule      Fault = "rule"       // an x-refuse rule the request alone breaks
	FaultReference Fault = "reference"  // an id the account does not have
	FaultConflict  Fault = "conflict"   // a refusal the resources show: a state, a taken name
)

// FaultRank is one entry of x-fault-order: a fault and the statuses it
// is answered with; the entries' order is the order in which they win.
type FaultRank struct {
	Fault    Fault
	Statuses []int
	// Seed is the clause the entry's place rests on ("5.3" for the key),
	// "" when the mark's decision does.
	Seed     string
	Decision string
}

// faultOrder reads the root x-fault-order mark.
func faultOrder(doc *openapi3.T) []FaultRank {
	m, _ := doc.Extensions["x-fault-order"].(map[string]any)
	decision := str(m["decision"])
	var out []FaultRank
	for _, raw := range list(m["order"]) {
		e, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		r := FaultRank{Fault: Fault(str(e["fault"])), Seed: str(e["seed"]), Decision: decision}
		for _, s := range list(e["status"]) {
			r.Statuses = append(r.Statuses, intOf(s))
		}
		out = append(out, r)
	}
	return out
}

// Rank is the place of f in the order (len when the order does not name
// it: it wins over nothing).
func (c *Catalog) Rank(f Fault) int {
	for i, r := range c.Faults {
		if r.Fault == f {
			return i
		}
	}
	return len(c.Faults)
}

// Statuses are the statuses the order gives f.
func (c *Catalog) Statuses(f Fault) []int {
	for _, r := range c.Faults {
		if r.Fault == f {
			return r.Statuses
		}
	}
	return nil
}

// carrier is the part of a request a fault of an operation changes: a
// whole-body fault replaces what field faults write into the body, and
// two faults on one id field cannot both hold.
type carrier struct {
	wholeBody bool   // the body's bytes (syntax)
	bodyField bool   // a field of the body (schema, rule, an id in the body)
	id        string // the id field it aims ("path:model_id")
}

// Faults lists the faults a client can give a call of op, with what each
// changes.
func (c *Catalog) faultsOf(op *Op) map[Fault]carrier {
	out := map[Fault]carrier{FaultKey: {}}
	if op.Media != "" {
		out[FaultMedia] = carrier{}
		out[FaultSyntax] = carrier{wholeBody: true}
		if op.Documents(413) {
			out[FaultSize] = carrier{}
		}
	}
	if f := SchemaFault(op); f != nil {
		out[FaultSchema] = carrier{bodyField: f.In == "body" || f.In == "form"}
	}
	for _, r := range op.Rules {
		if !r.Reads {
			out[FaultRule] = carrier{bodyField: true}
		}
	}
	if len(op.IDs) > 0 {
		f := op.IDs[0]
		out[FaultReference] = carrier{bodyField: f.In == "body" || f.In == "form", id: f.Loc()}
	}
	if cf, ok := c.conflictOf(op); ok {
		out[FaultConflict] = cf
	}
	return out
}

// SchemaFault is the field whose value a schema fault breaks: the first
// field with a value the declared view refuses (a value of another type,
// a member outside an enum the reference states), nil when none.
func SchemaFault(op *Op) *Field {
	for _, f := range op.Fields {
		for _, d := range valueDims(op, f) {
			if d.Value.Declared && !d.Value.Absent && strings.IndexAny(f.Name, ".[") < 0 {
				return f
			}
		}
	}
	return nil
}

// conflictOf says whether a call of op can meet a refusal its resources
// show, and where: a state an x-effect refuses it in, a rule that reads
// the resources, a unique name.
func (c *Catalog) conflictOf(op *Op) (carrier, bool) {
	for _, e := range op.Effects {
		if e.Rule == "state" && len(e.RefusedIn) > 0 {
			if f := op.Field("path:" + e.Target); f != nil {
				return carrier{id: f.Loc()}, true
			}
			if f := op.Field("body:" + e.Target); f != nil {
				return carrier{bodyField: true, id: f.Loc()}, true
			}
		}
	}
	for _, r := range op.Rules {
		if r.Reads {
			return carrier{bodyField: true, id: "body:" + r.Field}, true
		}
	}
	if UniqueField(op) != nil {
		return carrier{bodyField: true}, true
	}
	return carrier{}, false
}

// UniqueField is the request field of op whose value must be free among
// the account's records (a name D-19 keeps unique: x-predict stored
// unique on the record field it is stored in), nil when none.
func UniqueField(op *Op) *Field {
	if op.Kind == nil || (op.Role != RoleCreate && op.Role != RoleUpdate) || op.Kind.unique == nil {
		return nil
	}
	for _, f := range op.Fields {
		if (f.In == "body" || f.In == "form") && f.Stored != "" && op.Kind.unique[f.Stored] {
			return f
		}
	}
	return nil
}

// pairDims are each two faults of op in one call, with the statuses of
// the one that must win.
func (c *Catalog) pairDims(op *Op) []Dimension {
	faults := c.faultsOf(op)
	var names []Fault
	for _, r := range c.Faults {
		if _, ok := faults[r.Fault]; ok {
			names = append(names, r.Fault)
		}
	}
	var out []Dimension
	for i, a := range names {
		for _, b := range names[i+1:] {
			ca, cb := faults[a], faults[b]
			if (ca.wholeBody && cb.bodyField) || (cb.wholeBody && ca.bodyField) || (ca.id != "" && ca.id == cb.id) {
				continue
			}
			win := c.Statuses(a)
			out = append(out, Dimension{Family: FamilyPair, Name: fmt.Sprintf("%s + %s → %s", a, b, codes(win)), Faults: [2]Fault{a, b}, Wins: win})
		}
	}
	return out
}

// repeatDims: each refusal a client can provoke sent again (it changed
// nothing, so it is refused again), and a delete repeated (the resource
// is gone: 404).
func (c *Catalog) repeatDims(op *Op) []Dimension {
	var out []Dimension
	faults := c.faultsOf(op)
	for _, r := range c.Faults {
		if _, ok := faults[r.Fault]; ok {
			out = append(out, Dimension{Family: FamilyRepeat, Name: fmt.Sprintf("a %s refusal sent again", r.Fault), Fault: r.Fault})
		}
	}
	if op.Role == RoleDelete {
		out = append(out, Dimension{Family: FamilyRepeat, Name: "a delete repeated → 404", Wins: []int{404}})
	}
	return out
}

// burstDims: the call among about eight concurrent calls with one key,
// as a page load sends them. Reads and streams only.
func burstDims(op *Op) []Dimension {
	if op.Writes() && !op.Stream() {
		return nil
	}
	return []Dimension{{Family: FamilyBurst, Name: "in a burst of concurrent calls with one key"}}
}

func codes(list []int) string {
	s := make([]string, len(list))
	for i, n := range list {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, "|")
}

// Faults lists the faults of op the order names, in its order.
func (c *Catalog) FaultsOf(op *Op) []Fault {
	have := c.faultsOf(op)
	var out []Fault
	for _, r := range c.Faults {
		if _, ok := have[r.Fault]; ok {
			out = append(out, r.Fault)
		}
	}
	return slices.Clip(out)
}

// FaultStatuses are the statuses a fault of op is answered with: those
// x-fault-order gives it, narrowed for a conflict to the codes op's own
// refusals state (a state's 409, a same-parent rule's 422).
func (c *Catalog) FaultStatuses(op *Op, f Fault) []int {
	if f != FaultConflict {
		return c.Statuses(f)
	}
	var out []int
	add := func(code int) {
		if code != 0 && !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	for _, e := range op.Effects {
		if e.Rule == "state" && len(e.RefusedIn) > 0 {
			add(e.Status)
		}
	}
	for _, r := range op.Rules {
		if r.Reads {
			add(r.Status)
		}
	}
	if UniqueField(op) != nil {
		add(c.Statuses(f)[0])
	}
	return out
}
