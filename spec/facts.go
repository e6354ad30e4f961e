package spec

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v3"
)

// The declared facts of the contract: every rule of the API reference that
// an answer can break, one at a time, each at its place. They are read from
// the declared view (Declared: what the seed states, every decided
// constraint relaxed) and from the reference's own marks (x-seed on an
// answer whose status the seed names), so a field, a status or a default
// added to the contract adds its facts here without a line of Go. A
// finding that breaks one of them is declared whatever check, prediction
// or decision met it; the class-completeness test breaks each and demands
// a declared finding.

// FactKind is what a fact holds of an answer.
type FactKind string

// The kinds of fact.
const (
	// FactType: the value has the JSON type Want ("integer", "string",
	// "number", "boolean", "array", "object").
	FactType FactKind = "type"
	// FactNonNull: the value is not null.
	FactNonNull FactKind = "non-null"
	// FactEnum: the value is one of Want ([]any).
	FactEnum FactKind = "enum"
	// FactDateTime: the value is an RFC 3339 date-time (§2: ISO 8601).
	FactDateTime FactKind = "date-time"
	// FactRequired: the member at Pointer is present.
	FactRequired FactKind = "required"
	// FactSuccessStatus: a success of the operation answers the status
	// Want (an int) and no other 2xx.
	FactSuccessStatus FactKind = "success-status"
	// FactDefault: a create that leaves the request field Field out
	// answers the record with the default Want at Pointer (or without the
	// member: §2.1 "only id and name are always present").
	FactDefault FactKind = "default"
	// FactRefusalStatus: a refusal the seed names answers the status Want
	// (an int): 401 for a missing or wrong key (§5.3).
	FactRefusalStatus FactKind = "refusal-status"
	// FactGone: once the operation Want (a delete that is not soft) removed
	// a record, the operation Op, reading that record or what is under
	// it, is refused (a conversation's messages go with it, §4.2).
	FactGone FactKind = "gone"
	// FactStateRefusal: the operation is refused while its record is in one
	// of the states Want ([]string): §3.1 rule 1, a running evaluation is
	// not deleted. Status is the refusal's documented status (the code is
	// a decision's; the refusal is the reference's).
	FactStateRefusal FactKind = "state-refusal"
)

// Fact is one declared rule of one answer of the contract.
type Fact struct {
	// Op is the operationId whose answer holds it; Status the answer's
	// documented status (0 for a success-status fact: any 2xx).
	Op     string
	Status int
	Kind   FactKind
	// Pointer is where in the answer's JSON body the fact holds, "*"
	// standing for every item of an array ("/data/evaluations/*/status");
	// "status" for a status fact.
	Pointer string
	// Want is what the fact wants (see FactKind).
	Want any
	// Field is a default fact's request field.
	Field string
	// Clause is the reference's clause that states it.
	Clause string
	// Place is where the contract writes it (a JSON pointer into the
	// document, with the kind): the same fact shown in several answers
	// (a Model in a list, a read and a create) has one Place.
	Place string
}

// String names the fact for a report: "getModel 200 /data/id type integer (§2.1)".
func (f Fact) String() string {
	status := "any"
	switch {
	case f.Kind == FactSuccessStatus:
		status = "2xx"
	case f.Status != 0:
		status = strconv.Itoa(f.Status)
	}
	return fmt.Sprintf("%s %s %s %s %v (§%s)", f.Op, status, f.Pointer, f.Kind, f.Want, f.Clause)
}

// Facts lists the declared facts of c's answers, sorted by operation,
// status and pointer; read once per contract, shared: the caller must not
// change the list. Call it on the declared view: the contract as written
// also holds the decided constraints.
func (c *Contract) Facts() []Fact { return c.facts() }

func (c *Contract) readFacts() []Fact {
	var doc yaml.Node
	if err := yaml.Unmarshal(c.Raw, &doc); err != nil {
		return nil
	}
	var out []Fact
	for _, op := range c.Operations {
		kin, err := c.KinOperation(op.ID)
		if err != nil {
			continue
		}
		for code, ref := range kin.Responses.Map() {
			status, err := strconv.Atoi(code)
			if err != nil || ref == nil || ref.Value == nil {
				continue
			}
			clause := op.Clause
			if s, ok := ref.Value.Extensions["x-seed"].(string); ok {
				clause = s
				if status/100 == 2 {
					out = append(out, Fact{Op: op.ID, Kind: FactSuccessStatus, Pointer: "status", Want: status,
						Clause: s, Place: responsePlace(op, code, ref)})
				} else {
					out = append(out, Fact{Op: op.ID, Status: status, Kind: FactRefusalStatus, Pointer: "status", Want: status,
						Clause: s, Place: responsePlace(op, code, ref)})
				}
			}
			mt := ref.Value.Content.Get("application/json")
			if mt == nil || mt.Schema == nil {
				continue
			}
			w := factWalk{op: op.ID, status: status}
			w.schema(mt.Schema, "", responsePlace(op, code, ref)+"/content/application~1json/schema", clause, 0)
			out = append(out, w.out...)
		}
		out = append(out, c.defaultFacts(op, kin, &doc)...)
		out = append(out, c.relationFacts(op)...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		if a.Status != b.Status {
			return a.Status < b.Status
		}
		return a.Pointer < b.Pointer
	})
	return out
}

// responsePlace is where the contract writes op's answer of code: its
// component when it refers to one.
func responsePlace(op Operation, code string, ref *openapi3.ResponseRef) string {
	if strings.HasPrefix(ref.Ref, "#/") {
		return strings.TrimPrefix(ref.Ref, "#")
	}
	return "/paths/" + escapePointer.Replace(op.Path) + "/" + strings.ToLower(op.Method) + "/responses/" + code
}

// factWalk collects the facts of one answer's schema.
type factWalk struct {
	op     string
	status int
	out    []Fact
}

// maxFactDepth bounds the walk (the contract has no recursive schema; a
// bound keeps a future one from looping).
const maxFactDepth = 12

// schema adds the facts of the value at ptr (the answer's pointer), written
// at place, stated by clause (the nearest x-seed above it).
func (w *factWalk) schema(ref *openapi3.SchemaRef, ptr, place, clause string, depth int) {
	if ref == nil || ref.Value == nil || depth > maxFactDepth {
		return
	}
	if strings.HasPrefix(ref.Ref, "#/") {
		place = strings.TrimPrefix(ref.Ref, "#")
	}
	s := ref.Value
	if c, ok := s.Extensions["x-seed"].(string); ok {
		clause = c
	}
	nullable := s.Nullable
	switch {
	case len(s.AllOf) == 1 && s.Type == nil && len(s.Properties) == 0:
		// A wrapper that carries marks beside a reference.
		w.schema(s.AllOf[0], ptr, place+"/allOf/0", clause, depth+1)
		return
	case len(s.AnyOf) == 2 && isNullOnly(s.AnyOf[1]) && s.Type == nil:
		// A schema the declared view lets be null (spec.Relax's
		// anyOf[itself, null]): its facts hold where it is not null.
		w.schema(nullableRef(s.AnyOf[0]), ptr, place+"/anyOf/0", clause, depth+1)
		return
	case len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.Not != nil:
		return // a union states no fact of its own here
	}
	add := func(kind FactKind, want any) {
		w.out = append(w.out, Fact{Op: w.op, Status: w.status, Kind: kind, Pointer: ptr, Want: want, Clause: clause,
			Place: place + " " + string(kind)})
	}
	if s.Type != nil && len(s.Type.Slice()) == 1 {
		add(FactType, s.Type.Slice()[0])
		if !nullable {
			add(FactNonNull, nil)
		}
	}
	if enum := slices.DeleteFunc(slices.Clone(s.Enum), func(v any) bool { return v == nil }); len(enum) > 0 {
		add(FactEnum, enum) // a null the view allows is the non-null fact's absence
	}
	if s.Format == "date-time" {
		add(FactDateTime, nil)
	}
	for _, name := range s.Required {
		w.out = append(w.out, Fact{Op: w.op, Status: w.status, Kind: FactRequired, Pointer: ptr + "/" + escapePointer.Replace(name),
			Clause: clause, Place: place + "/properties/" + escapePointer.Replace(name) + " required"})
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		key := escapePointer.Replace(name)
		w.schema(s.Properties[name], ptr+"/"+key, place+"/properties/"+key, clause, depth+1)
	}
	if s.Items != nil {
		w.schema(s.Items, ptr+"/*", place+"/items", clause, depth+1)
	}
}

// isNullOnly reports whether ref is the schema that allows null alone.
func isNullOnly(ref *openapi3.SchemaRef) bool {
	return ref != nil && ref.Value != nil && ref.Value.Nullable && len(ref.Value.Enum) == 1 && ref.Value.Enum[0] == nil
}

// nullableRef is ref allowed to be null: a copy with Nullable set.
func nullableRef(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
	if ref == nil || ref.Value == nil {
		return ref
	}
	v := *ref.Value
	v.Nullable = true
	return &openapi3.SchemaRef{Ref: ref.Ref, Value: &v}
}

// defaultFacts are the defaults a create of op shows for the fields its
// request leaves out: each record property of a table the seed states
// (x-seed above it) whose default the document writes and that a field of
// the request sets (x-stored, or the same name). A property no request sets
// holds what the server chose (a measured speed, a category of its own
// reading): its value is the server's, not a default a client can tell
// apart. doc is the document the view was built from.
func (c *Contract) defaultFacts(op Operation, kin *openapi3.Operation, doc *yaml.Node) []Fact {
	if role, _ := c.Place(op); role != RoleCreate {
		return nil
	}
	body := requestBodySchema(kin)
	ok := kin.Responses.Value("200")
	if body == nil || ok == nil || ok.Value == nil {
		return nil
	}
	mt := ok.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	data := mt.Schema.Value.Properties["data"]
	if data == nil || data.Value == nil || !strings.HasPrefix(data.Ref, "#/") {
		return nil
	}
	record, place := data.Value, strings.TrimPrefix(data.Ref, "#")
	clause, _ := record.Extensions["x-seed"].(string)
	if clause == "" {
		return nil
	}
	var out []Fact
	for _, name := range sortedNames(body.Properties) {
		p := body.Properties[name]
		if p == nil || p.Value == nil {
			continue
		}
		field, _, kept := Stored(name, p.Value.Extensions)
		if !kept || record.Properties[field] == nil {
			continue
		}
		prop := place + "/properties/" + escapePointer.Replace(field)
		want, written := writtenDefault(doc, prop)
		if !written {
			continue
		}
		out = append(out, Fact{Op: op.ID, Status: 200, Kind: FactDefault, Pointer: "/data/" + escapePointer.Replace(field),
			Want: want, Field: name, Clause: clause, Place: prop + " default"})
	}
	return out
}

// writtenDefault is the default the document writes on the schema at ptr
// (a JSON pointer), `default: null` included, which kin-openapi cannot
// tell from no default at all.
func writtenDefault(doc *yaml.Node, ptr string) (any, bool) {
	n := doc
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		n = value(n, strings.NewReplacer("~1", "/", "~0", "~").Replace(seg))
		if n == nil {
			return nil, false
		}
	}
	d := value(n, "default")
	if d == nil {
		return nil, false
	}
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

func sortedNames(props openapi3.Schemas) []string {
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// relationFacts are what the reference says a write does to the record it
// names: a delete that is not soft removes the record and what is under
// it (its reads are refused), and a state the reference names refuses the
// operation (x-effect state entries that rest on a clause).
func (c *Contract) relationFacts(op Operation) []Fact {
	var out []Fact
	role, res := c.Place(op)
	soft := false
	for i, e := range c.Effects(op) {
		seed := e.Str("seed")
		switch {
		case e.Rule == "soft-delete":
			soft = true
		case e.Rule == "state" && seed != "":
			status := 0
			if r, ok := e.Params["refuse"].(map[string]any); ok {
				n, _ := r["status"].(float64)
				status = int(n)
			}
			out = append(out, Fact{Op: op.ID, Status: status, Kind: FactStateRefusal, Pointer: "status", Want: e.List("refused-in"),
				Clause: seed, Place: fmt.Sprintf("%s x-effect/%d", c.opPlace(op), i)})
		}
	}
	if role != RoleDelete || soft || op.Clause == "" {
		return out
	}
	for _, read := range c.Operations {
		r, rres := c.Place(read)
		if rres != res || !strings.EqualFold(read.Method, "GET") || r != RoleGet && r != RoleChild {
			continue
		}
		out = append(out, Fact{Op: read.ID, Kind: FactGone, Pointer: "status", Want: op.ID,
			Clause: op.Clause, Place: c.opPlace(op) + " gone " + read.ID})
	}
	return out
}

// opPlace is where the contract writes op.
func (c *Contract) opPlace(op Operation) string {
	return "/paths/" + escapePointer.Replace(op.Path) + "/" + strings.ToLower(op.Method)
}
