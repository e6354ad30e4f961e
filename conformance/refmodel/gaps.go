package refmodel

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Gap is a field of an answer the model cannot judge: it has no x-predict
// mark, or its mark names a rule the model does not implement or misses
// what the rule needs.
type Gap struct {
	// Pointer is where the field's schema is written in the document
	// ("/components/schemas/Model/properties/category").
	Pointer string
	// Problem says what is missing.
	Problem string
}

// String renders the gap on one line.
func (g Gap) String() string { return g.Pointer + ": " + g.Problem }

// Gaps walks every answer of every operation of doc — each documented JSON
// response and each event stream's chunk (its x-event-schema), every
// property, through references, allOf wrappers, oneOf and anyOf branches
// and array items — and lists
// each field that has neither a prediction rule nor an exemption with its
// reason. An object that is always there and whose own properties carry
// the predictions (an envelope's data) needs no mark; an array or a
// nullable object does (its rule says when it is there and what it holds).
// Gaps are sorted by pointer; each is listed once however many answers
// reach it. An x-effect or x-refuse entry naming a rule the model does not
// implement is a gap too.
func Gaps(doc *openapi3.T) []Gap {
	comp := newCompiler(doc)
	g := &gapWalk{seen: map[*shape]bool{}}
	for _, path := range sortedKeys(doc.Paths.Map()) {
		item := doc.Paths.Value(path)
		ops := item.Operations()
		for _, method := range sortedKeys(ops) {
			op := ops[method]
			at := "/paths/" + escape(path) + "/" + strings.ToLower(method)
			g.effects(at, op)
			for _, code := range sortedKeys(op.Responses.Map()) {
				r := op.Responses.Value(code)
				if r == nil || r.Value == nil {
					continue
				}
				ptr := at + "/responses/" + code
				if r.Ref != "" {
					ptr = refPointer(r.Ref)
				}
				if mt := r.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
					g.object(comp.compile(mt.Schema, ptr+"/content/application~1json/schema"))
				}
				if mt := r.Value.Content.Get("text/event-stream"); mt != nil {
					chunk := comp.component(mt.Extensions["x-event-schema"])
					if chunk == nil {
						g.add(ptr+"/content/text~1event-stream", "an event stream without an x-event-schema the model can read")
						continue
					}
					g.object(chunk)
				}
			}
		}
	}
	sort.Slice(g.gaps, func(i, j int) bool {
		if g.gaps[i].Pointer != g.gaps[j].Pointer {
			return g.gaps[i].Pointer < g.gaps[j].Pointer
		}
		return g.gaps[i].Problem < g.gaps[j].Problem
	})
	return g.gaps
}

type gapWalk struct {
	gaps []Gap
	seen map[*shape]bool
}

func (g *gapWalk) add(ptr, problem string) {
	// A union's property is reached through the union and its branch:
	// one gap, once.
	gap := Gap{Pointer: ptr, Problem: problem}
	if !slices.Contains(g.gaps, gap) {
		g.gaps = append(g.gaps, gap)
	}
}

// effects checks that every x-effect and x-refuse entry of an operation
// (on it, its request body or a field of it) names a rule the model
// implements.
func (g *gapWalk) effects(ptr string, op *openapi3.Operation) {
	check := func(at string, ext map[string]any, key string, known func(string) bool) {
		for _, e := range readEffects(ext, key, at) {
			if !known(e.rule) {
				g.add(at, fmt.Sprintf("%s names rule %q, which the model does not implement", key, e.rule))
			}
		}
	}
	isEffect := func(r string) bool { _, ok := effectRules[r]; return ok }
	isRefusal := func(r string) bool { _, ok := refuseRules[r]; return ok }
	check(ptr, op.Extensions, "x-effect", isEffect)
	check(ptr, op.Extensions, "x-refuse", isRefusal)
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return
	}
	for _, media := range sortedKeys(op.RequestBody.Value.Content) {
		mt := op.RequestBody.Value.Content[media]
		if mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		at := ptr + "/requestBody/content/" + escape(media) + "/schema"
		if mt.Schema.Ref != "" {
			at = refPointer(mt.Schema.Ref)
		}
		check(at, mt.Schema.Value.Extensions, "x-refuse", isRefusal)
		for _, name := range sortedKeys(mt.Schema.Value.Properties) {
			if p := mt.Schema.Value.Properties[name]; p.Value != nil {
				check(at+"/properties/"+escape(name), p.Value.Extensions, "x-refuse", isRefusal)
			}
		}
	}
}

// object walks the properties of an object shape (an answer's root, a
// container, or a value whose rule descends).
func (g *gapWalk) object(s *shape) {
	if s == nil || g.seen[s] {
		return
	}
	g.seen[s] = true
	for _, name := range s.names {
		g.field(s.props[name])
	}
	// A union's branches each hold their own marks: props keeps only the
	// first branch's property of each name.
	for _, alt := range s.alts {
		g.object(alt)
	}
}

// field judges one property: a mark that is sound and, when its rule
// descends, what is below it.
func (g *gapWalk) field(p *shape) {
	if p.markErr != nil {
		g.add(p.ptr, p.markErr.Error())
		return
	}
	if p.mark == nil {
		if p.container() {
			g.object(p)
			return
		}
		g.add(p.ptr, "no x-predict: say how the model predicts this field, or exempt it (rule: free) with its reason")
		return
	}
	for _, problem := range p.mark.problems() {
		g.add(p.mark.ptr, problem)
	}
	spec, ok := rules[p.mark.rule]
	if !ok || !spec.descends {
		return
	}
	if p.props != nil {
		g.object(p)
	}
	if p.items != nil && p.items.props != nil {
		g.object(p.items)
	}
}

// sortedKeys returns a map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
