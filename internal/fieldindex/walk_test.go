package fieldindex

import (
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// The contract's side: every field of every answer, found where the
// reference model's compiler (conformance/refmodel, shape.go) finds it, so
// that a gap the model reports and a field this walk lists meet at one
// JSON pointer. A reference is followed and the field is named where its
// schema is written (Model.metrics is /components/schemas/Metrics); an
// allOf wrapper is the field, its member's properties are below it; an
// array's fields are its items' properties; each oneOf or anyOf branch has
// its own. A free-form object (no declared properties: an inference's
// metadata, AnyValue) is one field and the walk goes no deeper: what it
// holds is the server's, named nowhere, so nothing below it can be served,
// marked or predicted by name.

// field is one property of an answer, wherever the answers reach it.
type field struct {
	// ptr is where its schema is written in the document.
	ptr string
	// answers are the answers that reach it ("getModel 200"), in the
	// contract's order.
	answers []string
	// marked: it has an x-predict mark of its own.
	marked bool
	// basis says what its prediction rests on: its own x-predict's seed
	// clause or decision row, or else the nearest marked field above it
	// ("" none: neither). A field without a mark is covered by that
	// field's only when the model does not ask it for one of its own (no
	// gap at its pointer).
	basis string
	// unserved is why the mock never serves it (an x-unserved mark on it
	// or on the schema it belongs to); "" when it must be served.
	unserved string
	// container: an object that is always there and whose properties
	// carry the marks (an envelope's data), as the model counts one: it
	// needs no mark of its own.
	container bool
}

// fieldWalk lists the fields of a contract's answers.
type fieldWalk struct {
	byPtr map[string]*field
	order []string
}

// answerFields walks every documented answer of every operation of doc (a
// JSON body, or an event stream's chunk: its x-event-schema) and returns
// its fields, sorted by pointer.
func answerFields(doc *openapi3.T) []*field {
	w := &fieldWalk{byPtr: map[string]*field{}}
	for _, a := range answersOf(doc) {
		w.children(a.schema, a.ptr, a.name, "", "", map[*openapi3.Schema]bool{})
	}
	out := make([]*field, 0, len(w.order))
	for _, p := range w.order {
		out = append(out, w.byPtr[p])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ptr < out[j].ptr })
	return out
}

// answer is one documented answer body: the operation and status that
// give it ("getModel 200"), its schema and where that is written.
type answer struct {
	name, op, status string
	stream           bool
	schema           *openapi3.SchemaRef
	ptr              string
}

// answersOf lists the documented answer bodies of doc, by path, method
// and status.
func answersOf(doc *openapi3.T) []answer {
	var out []answer
	for _, path := range sortedKeys(doc.Paths.Map()) {
		ops := doc.Paths.Value(path).Operations()
		for _, method := range sortedKeys(ops) {
			op := ops[method]
			at := "/paths/" + escape(path) + "/" + strings.ToLower(method)
			for _, code := range sortedKeys(op.Responses.Map()) {
				r := op.Responses.Value(code)
				if r == nil || r.Value == nil {
					continue
				}
				ptr := at + "/responses/" + code
				if r.Ref != "" {
					ptr = strings.TrimPrefix(r.Ref, "#")
				}
				name := op.OperationID + " " + code
				if mt := r.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
					out = append(out, answer{name: name, op: op.OperationID, status: code, schema: mt.Schema, ptr: ptr + "/content/application~1json/schema"})
				}
				if mt := r.Value.Content.Get("text/event-stream"); mt != nil {
					if chunk, at := eventSchema(doc, mt); chunk != nil {
						out = append(out, answer{name: name + " event", op: op.OperationID, status: code, stream: true, schema: chunk, ptr: at})
					}
				}
			}
		}
	}
	return out
}

// eventSchema is the chunk schema an event stream's x-event-schema mark
// names (spec.Contract.EventSchema), and where it is written.
func eventSchema(doc *openapi3.T, mt *openapi3.MediaType) (*openapi3.SchemaRef, string) {
	mark, _ := mt.Extensions[spec.EventMark].(map[string]any)
	ref, _ := mark["$ref"].(string)
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok || doc.Components == nil || doc.Components.Schemas[name] == nil {
		return nil, ""
	}
	return doc.Components.Schemas[name], strings.TrimPrefix(ref, "#")
}

// resolved is a schema as the model's compiler sees it: where it is
// written, and for an allOf wrapper (a mark beside a reference) the member
// that holds its shape.
func resolved(ref *openapi3.SchemaRef, ptr string) (s *openapi3.Schema, at string, member *openapi3.SchemaRef, memberAt string) {
	if ref == nil || ref.Value == nil {
		return nil, ptr, nil, ""
	}
	if strings.HasPrefix(ref.Ref, "#/") {
		ptr = strings.TrimPrefix(ref.Ref, "#")
	}
	s = ref.Value
	if len(s.AllOf) > 0 && len(s.Properties) == 0 && (s.Type == nil || len(s.Type.Slice()) == 0) {
		member, memberAt = s.AllOf[0], ptr+"/allOf/0"
		if strings.HasPrefix(member.Ref, "#/") {
			memberAt = strings.TrimPrefix(member.Ref, "#")
		}
	}
	return s, ptr, member, memberAt
}

// alternatives are the oneOf and anyOf branches of s, each with where it
// is written.
func alternatives(s *openapi3.Schema, ptr string) (refs openapi3.SchemaRefs, at []string) {
	for _, alt := range []struct {
		key  string
		refs openapi3.SchemaRefs
	}{{"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		for i, b := range alt.refs {
			p := fmt.Sprintf("%s/%s/%d", ptr, alt.key, i)
			if strings.HasPrefix(b.Ref, "#/") {
				p = strings.TrimPrefix(b.Ref, "#")
			}
			refs, at = append(refs, b), append(at, p)
		}
	}
	return refs, at
}

// children registers the fields below the schema ref written at ptr,
// reached by the answer named answer; basis and unserved are what the
// fields above say for them.
func (w *fieldWalk) children(ref *openapi3.SchemaRef, ptr, answer, basis, unserved string, onPath map[*openapi3.Schema]bool) {
	s, ptr, member, memberAt := resolved(ref, ptr)
	if s == nil || onPath[s] {
		return
	}
	onPath[s] = true
	defer delete(onPath, s)
	if why := unservedOf(s); why != "" {
		unserved = why
	}
	if member != nil {
		w.children(member, memberAt, answer, basis, unserved, onPath)
		return
	}
	for _, name := range sortedKeys(s.Properties) {
		w.field(s.Properties[name], ptr+"/properties/"+escape(name), answer, basis, unserved, onPath)
	}
	if s.Items != nil {
		w.children(s.Items, ptr+"/items", answer, basis, unserved, onPath)
	}
	refs, at := alternatives(s, ptr)
	for i, b := range refs {
		w.children(b, at[i], answer, basis, unserved, onPath)
	}
}

// field registers one property and walks below it.
func (w *fieldWalk) field(ref *openapi3.SchemaRef, ptr, answer, basis, unserved string, onPath map[*openapi3.Schema]bool) {
	s, at, member, _ := resolved(ref, ptr)
	if s == nil {
		return
	}
	own := markBasis(s.Extensions)
	if own == "" && member != nil {
		own = markBasis(member.Value.Extensions) // the model reads a wrapper's member's mark when it has none
	}
	_, marked := s.Extensions["x-predict"]
	marked = marked || member != nil && member.Value.Extensions["x-predict"] != nil
	if marked {
		basis = own // a mark of its own says what it rests on, or nothing
	}
	if why := unservedOf(s); why != "" {
		unserved = why
	}
	f := w.byPtr[at]
	if f == nil {
		f = &field{ptr: at, marked: marked, basis: basis, unserved: unserved, container: container(s, member)}
		w.byPtr[at] = f
		w.order = append(w.order, at)
	}
	if len(f.answers) == 0 || f.answers[len(f.answers)-1] != answer {
		f.answers = append(f.answers, answer)
	}
	w.children(ref, ptr, answer, basis, unserved, onPath)
}

// container reports whether the property is an object that is always
// there with properties of its own (refmodel's shape.container).
func container(s *openapi3.Schema, member *openapi3.SchemaRef) bool {
	shape := s
	if member != nil && member.Value != nil {
		shape = member.Value
	}
	untyped := shape.Type == nil || len(shape.Type.Slice()) == 0
	return (untyped || shape.Type.Is("object")) && len(shape.Properties) > 0 && !s.Nullable && !shape.Nullable
}

// markBasis is what an x-predict mark rests on: "seed 4.1", "D-34", both,
// or "" when it names neither (or there is no mark).
func markBasis(ext map[string]any) string {
	m, _ := ext["x-predict"].(map[string]any)
	seed, _ := m["seed"].(string)
	decision, _ := m["decision"].(string)
	var parts []string
	if seed != "" {
		parts = append(parts, "§"+seed)
	}
	if decision != "" {
		parts = append(parts, decision)
	}
	return strings.Join(parts, ", ")
}

// unservedOf is the reason of a schema's x-unserved mark, "" without one.
func unservedOf(s *openapi3.Schema) string {
	why, _ := s.Extensions["x-unserved"].(string)
	return strings.TrimSpace(why)
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

// escape escapes a JSON pointer token (RFC 6901).
func escape(s string) string { return pointerEscaper.Replace(s) }

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")
