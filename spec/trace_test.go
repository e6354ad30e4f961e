package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every constraint of the contract must stand on a clause of the API
// reference or on a decision that relaxes exactly it in Declared(); a
// constraint with neither is a rule nobody chose, and in the declared view it
// fails servers the reference allows.
//
// The marks:
//
//   - `x-seed: "2.6"` on an element (schema, parameter, header, request body)
//     says the clause states every constraint written on that element, and the
//     type of its parts: the type, the non-nullability and a `date-time`
//     format of its property, item, member and parameter schemas (a field
//     table's Type column). Any other constraint of a part (a bound, an enum,
//     a pattern, `required`) needs a mark of its own.
//   - `x-decision: {class: decided, relax: [...]}` traces each constraint its
//     relax list removes from Declared(): the named keyword on the marked
//     element, everything under a named subschema keyword (`properties`,
//     `items`, ...), everything under the element for "*", non-nullability for
//     "nullable", and the non-nullability of the inline properties for
//     "properties.nullable".
//
// Where both apply, the decision wins: the declared view drops the rule.

// constraintKeywords are the schema keywords that refuse values.
var constraintKeywords = []string{
	"type", "format", "enum", "required", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
	"minProperties", "maxProperties", "additionalProperties", "not",
	// The kit's own mark: a string the server splits into a list of at
	// most maxItems items (fields.go, D-28).
	SplitMark,
}

// subschemaKeywords hold schemas; a relax entry naming one relaxes the subtree.
var subschemaKeywords = []string{"properties", "items", "additionalProperties", "allOf", "anyOf", "oneOf", "not", "schema"}

// seedClause is a section of the API reference: 1, 2.6, 3.1.1, 4.5, ...
var seedClause = regexp.MustCompile(`^[1-9](\.[0-9]{1,2}){0,2}$`)

// seedSections are the reference's numbered sections and subsections.
var seedSections = map[string]bool{
	"1": true, "2": true, "3": true, "4": true, "5": true, "6": true, "7": true, "8": true, "9": true,
	"2.1": true, "2.2": true, "2.3": true, "2.4": true, "2.5": true, "2.6": true, "2.7": true, "2.8": true,
	"2.9": true, "2.10": true, "2.11": true, "3.1": true, "3.2": true, "3.3": true,
	"4.1": true, "4.2": true, "4.3": true, "4.4": true, "4.5": true,
}

// nullabilityNotShown are the tables whose nullable fields the reference
// does not show (§2: "which dataset, conversation and evaluation fields are
// required or nullable: not shown"; messages are a conversation's). A mark
// citing one of them does not trace its fields' refusal of null.
var nullabilityNotShown = map[string]bool{"2.4": true, "2.5": true, "2.6": true, "2.8": true}

func knownClause(c string) bool {
	if !seedClause.MatchString(c) {
		return false
	}
	parts := strings.Split(c, ".")
	if len(parts) == 1 {
		return seedSections[c]
	}
	// "1.2" is envelope rule 2 of §1; "4.5.3" the third endpoint of §4.5.
	return seedSections[parts[0]+"."+parts[1]] || (len(parts) == 2 && seedSections[parts[0]])
}

// cover is what the marks above a node trace for it.
type cover struct {
	all      bool   // a decided relax removed the whole subtree
	typeSeed string // a clause stating this node's type
	nullable bool   // a decided relax lets this node be null
	inQuery  bool   // a parameter or header value: text, never a JSON null
}

type tracer struct {
	untraced []string
	problems []string
}

// pointer appends a key to a JSON pointer (RFC 6901).
func pointer(base, key string) string { return base + "/" + escapePointer.Replace(key) }

func mapValue(n *yaml.Node, key string) *yaml.Node { return value(n, key) }

func (t *tracer) marks(ptr string, n *yaml.Node) (seed string, relax []string, decided bool) {
	if s := mapValue(n, "x-seed"); s != nil {
		seed = s.Value
		if !knownClause(seed) {
			t.problems = append(t.problems, fmt.Sprintf("%s: x-seed %q is not a clause of the API reference", ptr, seed))
		}
	}
	if m := mapValue(n, "x-decision"); m != nil {
		ds, err := decodeMarks(m)
		if err != nil {
			t.problems = append(t.problems, fmt.Sprintf("%s: x-decision: %v", ptr, err))
		}
		// Several marks on one element trace together: each decided one
		// relaxes its own keywords.
		for _, d := range ds {
			switch {
			case d.Class == "decided":
				decided = true
				relax = append(relax, d.Relax...)
			case len(d.Relax) > 0:
				t.problems = append(t.problems, fmt.Sprintf("%s: a %s mark relaxes %v; only decided marks relax", ptr, d.Class, d.Relax))
			}
		}
	}
	return seed, relax, decided
}

// check reports every constraint written on n that neither its marks nor c
// trace. kind is "schema", "parameter", "header" or "requestBody".
func (t *tracer) check(ptr string, n *yaml.Node, kind string, c cover) (seed string, relax []string) {
	seed, relax, decided := t.marks(ptr, n)
	if !decided {
		relax = nil
	}
	if slices.Contains(relax, "*") {
		c.all = true
	}
	var cons []string
	if kind == "schema" {
		for _, kw := range constraintKeywords {
			v := mapValue(n, kw)
			switch {
			case v == nil:
			case kw == "additionalProperties" && v.Kind == yaml.ScalarNode && v.Value == "true",
				kw == "additionalProperties" && v.Kind == yaml.MappingNode,
				(kw == "uniqueItems" || kw == "exclusiveMinimum" || kw == "exclusiveMaximum") && v.Value != "true",
				kw == "required" && len(v.Content) == 0:
			default:
				cons = append(cons, kw)
			}
		}
		if mapValue(n, "type") != nil && !c.inQuery {
			if nl := mapValue(n, "nullable"); nl == nil || nl.Value != "true" {
				cons = append(cons, "nullable")
			}
		}
	} else if r := mapValue(n, "required"); r != nil && r.Value == "true" {
		cons = append(cons, "required")
	}
	for _, kw := range cons {
		typeLevel := kw == "type" || kw == "nullable" || (kw == "format" && mapValue(n, "format").Value == "date-time")
		switch {
		case c.all, slices.Contains(relax, kw), kw == "nullable" && c.nullable:
		case seed != "":
		case typeLevel && c.typeSeed != "" && !(kw == "nullable" && nullabilityNotShown[c.typeSeed]):
		default:
			if kw == "nullable" {
				t.untraced = append(t.untraced, ptr+" (non-nullable)")
			} else {
				t.untraced = append(t.untraced, pointer(ptr, kw))
			}
		}
	}
	// A relax entry that removes nothing is a stale mark.
	for _, kw := range relax {
		switch kw {
		case "*", RelaxPropertiesNullable:
		case RelaxParameter:
			if mapValue(n, "in") == nil || mapValue(n, "schema") == nil {
				t.problems = append(t.problems, fmt.Sprintf("%s: relax %q, but it is not a parameter with a schema", ptr, kw))
			}
		case RelaxNullable:
			if !slices.Contains(cons, "nullable") {
				t.problems = append(t.problems, fmt.Sprintf("%s: relax %q, but the schema already allows null", ptr, kw))
			}
		default:
			if mapValue(n, kw) == nil {
				t.problems = append(t.problems, fmt.Sprintf("%s: relax %q, but it has no such keyword", ptr, kw))
			}
		}
	}
	return seed, relax
}

// child is the cover a part of n gets through the keyword edge.
func child(c cover, seed string, relax []string, edge string) cover {
	out := cover{all: c.all || slices.Contains(relax, "*") || slices.Contains(relax, edge), inQuery: c.inQuery}
	switch {
	case seed != "":
		out.typeSeed = seed
	case edge == "items" || edge == "schema":
		out.typeSeed = c.typeSeed // an array of strings, a parameter's schema
	}
	return out
}

func (t *tracer) schema(ptr string, n *yaml.Node, c cover) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	seed, relax := t.check(ptr, n, "schema", c)
	if props := mapValue(n, "properties"); props != nil {
		for i := 0; i+1 < len(props.Content); i += 2 {
			pc := child(c, seed, relax, "properties")
			pc.nullable = slices.Contains(relax, RelaxPropertiesNullable)
			t.schema(pointer(pointer(ptr, "properties"), props.Content[i].Value), props.Content[i+1], pc)
		}
	}
	for _, kw := range []string{"items", "additionalProperties", "not"} {
		t.schema(pointer(ptr, kw), mapValue(n, kw), child(c, seed, relax, kw))
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if list := mapValue(n, kw); list != nil {
			for i, m := range list.Content {
				t.schema(pointer(pointer(ptr, kw), fmt.Sprint(i)), m, child(c, seed, relax, kw))
			}
		}
	}
}

// withSchema checks a parameter or header and its schema.
func (t *tracer) withSchema(ptr string, n *yaml.Node, kind string) {
	if n == nil || mapValue(n, "$ref") != nil {
		return
	}
	seed, relax := t.check(ptr, n, kind, cover{})
	t.schema(pointer(ptr, "schema"), mapValue(n, "schema"), child(cover{inQuery: true}, seed, relax, "schema"))
	t.content(ptr, n)
}

func (t *tracer) content(ptr string, n *yaml.Node) {
	content := mapValue(n, "content")
	if content == nil {
		return
	}
	for i := 0; i+1 < len(content.Content); i += 2 {
		mp := pointer(pointer(ptr, "content"), content.Content[i].Value)
		media := content.Content[i+1]
		seed, relax := t.check(mp, media, "media", cover{})
		t.schema(pointer(mp, "schema"), mapValue(media, "schema"), child(cover{}, seed, relax, "schema"))
		t.schema(pointer(mp, "x-event-schema"), mapValue(media, "x-event-schema"), child(cover{}, seed, relax, "schema"))
	}
}

func (t *tracer) response(ptr string, n *yaml.Node) {
	if n == nil || mapValue(n, "$ref") != nil {
		return
	}
	t.marks(ptr, n)
	if headers := mapValue(n, "headers"); headers != nil {
		for i := 0; i+1 < len(headers.Content); i += 2 {
			t.withSchema(pointer(pointer(ptr, "headers"), headers.Content[i].Value), headers.Content[i+1], "header")
		}
	}
	t.content(ptr, n)
}

func (t *tracer) operation(ptr string, op *yaml.Node) {
	// An operation's own x-seed names the clause that states it; marks()
	// holds it to a clause of the reference like any other.
	t.marks(ptr, op)
	if params := mapValue(op, "parameters"); params != nil {
		for i, p := range params.Content {
			t.withSchema(pointer(pointer(ptr, "parameters"), fmt.Sprint(i)), p, "parameter")
		}
	}
	if rb := mapValue(op, "requestBody"); rb != nil && mapValue(rb, "$ref") == nil {
		rp := pointer(ptr, "requestBody")
		t.check(rp, rb, "requestBody", cover{})
		t.content(rp, rb)
	}
	if responses := mapValue(op, "responses"); responses != nil {
		for i := 0; i+1 < len(responses.Content); i += 2 {
			t.response(pointer(pointer(ptr, "responses"), responses.Content[i].Value), responses.Content[i+1])
		}
	}
}

// trace walks the whole document: every path item and operation (their
// parameters, request bodies, responses, headers and media), and every
// component, through nested properties, items, additionalProperties, allOf,
// anyOf, oneOf and not.
func trace(doc []byte) (untraced, problems []string, err error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, nil, err
	}
	top := root.Content[0]
	t := &tracer{}
	if paths := mapValue(top, "paths"); paths != nil {
		for i := 0; i+1 < len(paths.Content); i += 2 {
			pp := pointer("/paths", paths.Content[i].Value)
			item := paths.Content[i+1]
			for j := 0; j+1 < len(item.Content); j += 2 {
				switch key := item.Content[j].Value; key {
				case "parameters":
					t.operation(pp, item)
				case "get", "put", "post", "delete", "patch", "head", "options", "trace":
					t.operation(pointer(pp, key), item.Content[j+1])
				}
			}
		}
	}
	comps := mapValue(top, "components")
	each := func(section string, fn func(ptr string, n *yaml.Node)) {
		if m := mapValue(comps, section); m != nil {
			for i := 0; i+1 < len(m.Content); i += 2 {
				fn(pointer(pointer("/components", section), m.Content[i].Value), m.Content[i+1])
			}
		}
	}
	each("schemas", func(p string, n *yaml.Node) { t.schema(p, n, cover{}) })
	each("parameters", func(p string, n *yaml.Node) { t.withSchema(p, n, "parameter") })
	each("headers", func(p string, n *yaml.Node) { t.withSchema(p, n, "header") })
	each("responses", t.response)
	each("requestBodies", func(p string, n *yaml.Node) {
		t.check(p, n, "requestBody", cover{})
		t.content(p, n)
	})
	return t.untraced, t.problems, nil
}

func TestEveryConstraintIsTraced(t *testing.T) {
	untraced, problems, err := trace(Document)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range untraced {
		t.Errorf("%s: a constraint with neither an x-seed clause nor a decided relax", p)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestTraceFindsAnUntracedConstraint proves the walk reaches properties,
// parameters and allOf members, and that a table whose nullability the seed
// leaves unshown does not trace a refusal of null.
func TestTraceFindsAnUntracedConstraint(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"a bound on a table field", "        total_size: { type: integer, default: 0,",
			"        total_size: { type: integer, default: 0, maximum: 5,", "/components/schemas/UploadResult/properties/total_size/maximum"},
		{"a pattern on a parameter", "          x-seed: '4.5'\n          schema: { type: string }",
			"          x-seed: '4.5'\n          schema: { type: string, pattern: '^a' }", "/paths/~1api~1v1~1evaluations~1check-name/get/parameters/0/schema/pattern"},
		{"a refused null where the seed leaves nullability unshown", "relax: [required, properties.nullable] }\n      additionalProperties: true\n      properties:\n        id: { type: integer, x-predict: { rule: identity, seed: '4.3', decision: D-34 } }",
			"relax: [required] }\n      additionalProperties: true\n      properties:\n        id: { type: integer, x-predict: { rule: identity, seed: '4.3', decision: D-34 } }", "/components/schemas/Dataset/properties/description (non-nullable)"},
		{"an enum in an allOf member", "(seed §2.8).'\n          allOf: [ { $ref: '#/components/schemas/AnyValue' } ]",
			"(seed §2.8).'\n          allOf: [ { type: string, enum: [a] } ]", "/components/schemas/Evaluation/properties/user_model/allOf/0/enum"},
		{"a split limit on a form field", "          x-split: { separators: \",\\n\", maxItems: 50 }\n          x-decision: { row: D-28, class: decided, relax: [x-split] }",
			"          x-split: { separators: \",\\n\", maxItems: 50 }", "/components/schemas/DatasetCreateForm/properties/tags/x-split"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(string(Document), tc.from, tc.to, 1)
			if doc == string(Document) {
				t.Fatal("test fixture: text not found")
			}
			untraced, _, err := trace([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(untraced, tc.want) {
				t.Errorf("untraced %v, want %s among them", untraced, tc.want)
			}
		})
	}
}

// TestEveryRelaxIsVisibleInTheDeclaredView checks the other half of the
// trace: each relaxed keyword is really gone from Declared().
func TestEveryRelaxIsVisibleInTheDeclaredView(t *testing.T) {
	decisions, err := Decisions()
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(Declared().Raw, &root); err != nil {
		t.Fatal(err)
	}
	var whole []string // marks replaced by AnyValue, with everything under them
	for _, d := range decisions {
		if slices.Contains(d.Relax, "*") {
			whole = append(whole, d.Path+"/")
		}
	}
	for _, d := range decisions {
		if d.Class != "decided" || len(d.Relax) == 0 ||
			slices.ContainsFunc(whole, func(p string) bool { return strings.HasPrefix(d.Path, p) }) {
			continue
		}
		n := at(&root, d.Path)
		if n == nil {
			t.Errorf("%s: not in the declared view", d.Path)
			continue
		}
		for _, kw := range d.Relax {
			switch kw {
			case "*":
				if mapValue(n, "$ref") == nil {
					t.Errorf("%s: relax * left a schema other than AnyValue", d.Path)
				}
			case RelaxNullable:
				if nl := mapValue(n, "nullable"); nl == nil || nl.Value != "true" {
					t.Errorf("%s: still refuses null in the declared view", d.Path)
				}
			case RelaxPropertiesNullable:
			default:
				if mapValue(n, kw) != nil {
					t.Errorf("%s: %s kept in the declared view", d.Path, kw)
				}
			}
		}
	}
}

// at resolves a JSON pointer in a YAML tree.
func at(root *yaml.Node, ptr string) *yaml.Node {
	n := root.Content[0]
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		switch n.Kind {
		case yaml.MappingNode:
			n = mapValue(n, seg)
		case yaml.SequenceNode:
			var i int
			if _, err := fmt.Sscan(seg, &i); err != nil || i >= len(n.Content) {
				return nil
			}
			n = n.Content[i]
		default:
			return nil
		}
		if n == nil {
			return nil
		}
	}
	return n
}

// An element two decisions shape carries a list of marks: each relaxes its
// own keywords in Declared(), and the trace accepts what any of them relaxes
// (and only that: without the second mark, the closure is untraced).
func TestAListOfMarksRelaxesEachOne(t *testing.T) {
	marks := "x-decision:\n  - {row: D-09, class: decided, relax: [required]}\n  - {row: D-29, class: decided, relax: [additionalProperties]}\n"
	doc := []byte("type: object\nrequired: [a]\nadditionalProperties: false\n" + marks +
		"properties:\n  a: {type: string, x-seed: '4.2'}\n")
	out, err := Relax(doc)
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(out, &root); err != nil {
		t.Fatal(err)
	}
	for _, kw := range []string{"required", "additionalProperties"} {
		if mapValue(root.Content[0], kw) != nil {
			t.Errorf("%s kept by Relax:\n%s", kw, out)
		}
	}
	traced := func(doc []byte) []string {
		var src yaml.Node
		if err := yaml.Unmarshal(doc, &src); err != nil {
			t.Fatal(err)
		}
		tr := &tracer{}
		// As a property of a table the seed states: its type is traced.
		tr.schema("/x", src.Content[0], cover{typeSeed: "4.2"})
		if len(tr.problems) != 0 {
			t.Errorf("problems %v", tr.problems)
		}
		return tr.untraced
	}
	if got := traced(doc); len(got) != 0 {
		t.Errorf("two marks: untraced %v", got)
	}
	one := strings.Replace(string(doc), "  - {row: D-29, class: decided, relax: [additionalProperties]}\n", "", 1)
	if got := traced([]byte(one)); !slices.Equal(got, []string{"/x/additionalProperties"}) {
		t.Errorf("one mark: untraced %v, want [/x/additionalProperties]", got)
	}
}
