package refmodel

import (
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// shape is one schema of an answer as the model walks it: its type, its
// properties or items, and its mark. References are followed and an
// `allOf` wrapper is merged with its member (the wrapper carries the mark,
// the member the shape), so the walk sees one node per value.
type shape struct {
	// ptr is where the schema is written in the document (a JSON pointer):
	// gaps are reported there.
	ptr      string
	mark     *mark
	markErr  error
	typ      string // "object", "array", "string", ...; "" any
	nullable bool
	props    map[string]*shape
	names    []string // property names, sorted
	items    *shape
	dflt     any
	hasDflt  bool
	machine  *machine // x-transitions
	seedMark bool     // the schema carries an x-seed mark
	decision string   // the row of its first x-decision mark ("" none)
	// alts are the branches of a oneOf or anyOf, each with its own
	// properties and marks (props holds the first of each name only);
	// branches are those a discriminator names, by its value.
	alts     []*shape
	branches map[string]*shape
}

// branch is the shape of a union's branch whose discriminator value is v,
// or s itself when s is not a union that names one.
func (s *shape) branch(v string) *shape {
	if b := s.branches[v]; b != nil {
		return b
	}
	return s
}

// container reports whether the shape is an object that is always there
// and whose properties carry the predictions (an envelope's data): it
// needs no mark of its own.
func (s *shape) container() bool {
	return s.typ == "object" && len(s.props) > 0 && !s.nullable
}

// compiler builds shapes once per schema.
type compiler struct {
	doc  *openapi3.T
	memo map[*openapi3.Schema]*shape
}

func newCompiler(doc *openapi3.T) *compiler {
	return &compiler{doc: doc, memo: map[*openapi3.Schema]*shape{}}
}

// refPointer turns "#/components/schemas/X" into "/components/schemas/X".
func refPointer(ref string) string { return strings.TrimPrefix(ref, "#") }

// compile builds the shape of ref, written at ptr.
func (c *compiler) compile(ref *openapi3.SchemaRef, ptr string) *shape {
	if ref == nil || ref.Value == nil {
		return &shape{ptr: ptr}
	}
	if ref.Ref != "" && strings.HasPrefix(ref.Ref, "#/") {
		ptr = refPointer(ref.Ref)
	}
	s := ref.Value
	if sh, ok := c.memo[s]; ok {
		return sh
	}
	sh := &shape{ptr: ptr, nullable: s.Nullable, dflt: s.Default, hasDflt: s.Default != nil}
	c.memo[s] = sh
	sh.mark, sh.markErr = readMark(s.Extensions, ptr)
	_, sh.seedMark = s.Extensions["x-seed"]
	sh.decision = decisionRowOf(s.Extensions["x-decision"])
	if s.Type != nil && len(s.Type.Slice()) == 1 {
		sh.typ = s.Type.Slice()[0]
	}
	if len(s.AllOf) > 0 && len(s.Properties) == 0 && sh.typ == "" {
		// A wrapper that exists to carry a mark next to a reference: the
		// member's shape, under the wrapper's mark and pointer.
		member := c.compile(s.AllOf[0], fmt.Sprintf("%s/allOf/0", ptr))
		merged := *member
		merged.ptr, merged.mark, merged.markErr = ptr, sh.mark, sh.markErr
		if merged.mark == nil {
			merged.mark, merged.markErr = member.mark, member.markErr
		}
		merged.nullable = merged.nullable || s.Nullable
		*sh = merged
		return sh
	}
	if len(s.Properties) > 0 {
		sh.props = map[string]*shape{}
		for name, p := range s.Properties {
			sh.props[name] = c.compile(p, fmt.Sprintf("%s/properties/%s", ptr, escape(name)))
			sh.names = append(sh.names, name)
		}
		sort.Strings(sh.names)
		if sh.typ == "" {
			sh.typ = "object"
		}
	}
	if s.Items != nil {
		sh.items = c.compile(s.Items, ptr+"/items")
	}
	// oneOf and anyOf: the properties of every branch, so that each is
	// judged, and found when it has no mark (AnyValue's branches have none).
	for _, alt := range []struct {
		key  string
		refs openapi3.SchemaRefs
	}{{"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		for i, b := range alt.refs {
			branch := c.compile(b, fmt.Sprintf("%s/%s/%d", ptr, alt.key, i))
			sh.alts = append(sh.alts, branch)
			if s.Discriminator != nil {
				for v, ref := range s.Discriminator.Mapping {
					if ref.Ref == b.Ref {
						if sh.branches == nil {
							sh.branches = map[string]*shape{}
						}
						sh.branches[v] = branch
					}
				}
			}
			for _, name := range branch.names {
				if sh.props == nil {
					sh.props, sh.typ = map[string]*shape{}, "object"
				}
				if _, dup := sh.props[name]; !dup {
					sh.props[name] = branch.props[name]
					sh.names = append(sh.names, name)
				}
			}
		}
	}
	sort.Strings(sh.names)
	if t, ok := s.Extensions["x-transitions"].(map[string]any); ok {
		sh.machine = readMachine(t, sh.seedMark)
	}
	return sh
}

// component returns the shape of a schema of components/schemas named by
// an extension's {$ref: ...}.
func (c *compiler) component(v any) *shape {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	ref, _ := m["$ref"].(string)
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok || c.doc.Components == nil || c.doc.Components.Schemas[name] == nil {
		return nil
	}
	return c.compile(&openapi3.SchemaRef{Ref: ref, Value: c.doc.Components.Schemas[name].Value}, refPointer(ref))
}

// escape escapes a JSON pointer token (RFC 6901).
func escape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return pointerEscaper.Replace(s)
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// machine is a state machine from an x-transitions mark.
type machine struct {
	decision string
	// initialSeed: the schema states a clause, so a wrong initial state
	// breaks the reference (the evaluation's pending, §2.8).
	initialSeed bool
	initial     []string
	moves       map[string][]string
	// clock are the moves the server makes on its own, unseen.
	clock map[string][]string
	// allows is what allowing a write in any state rests on (D-36), and
	// seedIn the states where the reference itself implies it.
	allows basis
	seedIn []string
	// terminal are the states the reference calls terminal, by the clause
	// terminalSeed: neither the server's clock nor a call that is no
	// action on the state moves them (§3.1: completed and failed).
	terminal     []string
	terminalSeed string
}

func readMachine(m map[string]any, seed bool) *machine {
	t := &machine{initialSeed: seed, moves: map[string][]string{}, clock: map[string][]string{}}
	t.decision, _ = m["decision"].(string)
	t.initial = stringList(m["initial"])
	if a, ok := m["allows"].(map[string]any); ok {
		row, _ := a["decision"].(string)
		t.allows, t.seedIn = basis{decision: row}, stringList(a["seed-in"])
	}
	if term, ok := m["terminal"].(map[string]any); ok {
		t.terminal = stringList(term["states"])
		t.terminalSeed, _ = term["seed"].(string)
	}
	for key, dst := range map[string]map[string][]string{"moves": t.moves, "clock": t.clock} {
		if mv, ok := m[key].(map[string]any); ok {
			for from, to := range mv {
				dst[from] = stringList(to)
			}
		}
	}
	return t
}

// reach is the closure of set under moves.
func reach(set stateSet, moves map[string][]string) stateSet {
	out := set.clone()
	queue := set.list()
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, n := range moves[s] {
			if !out[n] {
				out[n] = true
				queue = append(queue, n)
			}
		}
	}
	return out
}

// states are every state the machine names.
func (t *machine) states() []string {
	seen := setOf(t.initial...)
	for from, to := range t.moves {
		seen[from] = true
		for _, s := range to {
			seen[s] = true
		}
	}
	return seen.list()
}

// known reports whether the machine names state.
func (t *machine) known(state string) bool {
	if contains(t.initial, state) {
		return true
	}
	for from, to := range t.moves {
		if from == state || contains(to, state) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// stateSet is the set of states a field may be in.
type stateSet map[string]bool

func setOf(states ...string) stateSet {
	out := stateSet{}
	for _, s := range states {
		out[s] = true
	}
	return out
}

func (s stateSet) clone() stateSet {
	out := stateSet{}
	for k := range s {
		out[k] = true
	}
	return out
}

// list is the set's states, sorted.
func (s stateSet) list() []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s stateSet) String() string { return strings.Join(s.list(), "|") }

// within reports whether every state of s is in other.
func (s stateSet) within(other []string) bool {
	for k := range s {
		if !contains(other, k) {
			return false
		}
	}
	return len(s) > 0
}

// meets reports whether some state of s is in other.
func (s stateSet) meets(other []string) bool {
	for _, o := range other {
		if s[o] {
			return true
		}
	}
	return false
}

// decisionRowOf is the row of an x-decision mark (the first of a list).
func decisionRowOf(v any) string {
	switch m := v.(type) {
	case map[string]any:
		row, _ := m["row"].(string)
		return row
	case []any:
		if len(m) > 0 {
			return decisionRowOf(m[0])
		}
	}
	return ""
}
