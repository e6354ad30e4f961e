package spec

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decision is one `x-decision` mark in the document: a place where the seed
// says "not shown" and this contract chose. See DECISIONS.md. An element
// two decisions shape (the required fields of a request body, decided by
// one row, and its closure, by another) carries a list of marks, each with
// its own row: `x-decision: [{row: D-09, ...}, {row: D-29, ...}]`.
type Decision struct {
	// Row is the decision's row of DECISIONS.md ("D-15"). The key is not
	// "id": JSON Schema tools (Redocly) read an "id" inside a schema as its
	// identifier.
	Row string `yaml:"row"`
	// Class is "declared" or "decided".
	Class string `yaml:"class"`
	// Relax lists the schema keywords a non-strict check ignores ("*": all).
	Relax []string `yaml:"relax"`
	// Path is where the mark stands, a JSON pointer (RFC 6901).
	Path string `yaml:"-"`
}

// Decisions lists every x-decision mark of the document in document order
// (the marks of one list in their order, all with the same Path).
func Decisions() ([]Decision, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(Document, &root); err != nil {
		return nil, err
	}
	var out []Decision
	var walkErr error
	walk(&root, "", func(path string, mapping *yaml.Node, mark *yaml.Node) {
		ds, err := decodeMarks(mark)
		if err != nil && walkErr == nil {
			walkErr = fmt.Errorf("%s: x-decision: %w", path, err)
		}
		for _, d := range ds {
			d.Path = path
			out = append(out, d)
		}
	})
	return out, walkErr
}

// decodeMarks reads the value of an x-decision key: one mark (a mapping)
// or a list of them.
func decodeMarks(n *yaml.Node) ([]Decision, error) {
	if n.Kind == yaml.SequenceNode {
		out := make([]Decision, 0, len(n.Content))
		for _, m := range n.Content {
			var d Decision
			if err := m.Decode(&d); err != nil {
				return out, err
			}
			out = append(out, d)
		}
		return out, nil
	}
	var d Decision
	err := n.Decode(&d)
	return []Decision{d}, err
}

// Two relax entries name no keyword to delete: a non-nullable schema is the
// absence of `nullable: true`, so relaxing it adds the keyword instead.
const (
	// RelaxNullable lets the marked schema be null.
	RelaxNullable = "nullable"
	// RelaxPropertiesNullable lets every inline property schema of the
	// marked object be null (the seed leaves the nullability of whole
	// tables unshown, §2).
	RelaxPropertiesNullable = "properties.nullable"
	// RelaxParameter, on a parameter whose very name is decided, lets its
	// value be anything: a server that names the parameter otherwise
	// ignores it, so no value of it is one the reference has it refuse
	// (the evaluation list's `status`, D-05). The parameter's schema, a
	// $ref the records share, stays as written in the strict view.
	RelaxParameter = "parameter"
)

// Relax returns raw with every decided constraint removed: in each mapping
// that carries `x-decision` with class "decided", the keywords listed in
// `relax` are deleted (or, for RelaxNullable and RelaxPropertiesNullable,
// null is allowed), and `relax: ["*"]` replaces the whole schema by one
// that accepts anything. Declared rules are untouched, so the result is the
// contract a server must keep whatever it decided where the seed is silent.
func Relax(raw []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil {
		return nil, err
	}
	var relaxErr error
	walk(&root, "", func(path string, mapping *yaml.Node, mark *yaml.Node) {
		ds, err := decodeMarks(mark)
		if err != nil {
			relaxErr = fmt.Errorf("%s: x-decision: %w", path, err)
			return
		}
		var relax []string
		for _, d := range ds {
			if d.Class == "decided" {
				relax = append(relax, d.Relax...)
			}
		}
		for _, kw := range relax {
			switch kw {
			case RelaxNullable:
				allowNull(mapping)
				continue
			case RelaxParameter:
				if schema := value(mapping, "schema"); schema != nil {
					schema.Kind, schema.Tag, schema.Style = yaml.MappingNode, "!!map", yaml.FlowStyle
					schema.Content = []*yaml.Node{
						{Kind: yaml.ScalarNode, Value: "$ref"},
						{Kind: yaml.ScalarNode, Value: "#/components/schemas/AnyValue", Style: yaml.SingleQuotedStyle},
					}
				}
				continue
			case RelaxPropertiesNullable:
				if props := value(mapping, "properties"); props != nil {
					for i := 1; i < len(props.Content); i += 2 {
						if value(props.Content[i], "$ref") == nil {
							allowNull(props.Content[i])
						}
					}
				}
				continue
			}
			if kw == "*" {
				// A bare $ref to AnyValue: in OpenAPI 3.0 an empty schema
				// refuses null, and the seed's silence allows it.
				mapping.Content = []*yaml.Node{
					{Kind: yaml.ScalarNode, Value: "$ref"},
					{Kind: yaml.ScalarNode, Value: "#/components/schemas/AnyValue", Style: yaml.SingleQuotedStyle},
				}
				return
			}
			deleteKey(mapping, kw)
		}
	})
	if relaxErr != nil {
		return nil, relaxErr
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// walk calls fn for every mapping holding an x-decision key.
func walk(n *yaml.Node, path string, fn func(path string, mapping, mark *yaml.Node)) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = fmt.Sprintf("%s/%d", path, i)
			}
			walk(c, p, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "x-decision" {
				fn(path, n, n.Content[i+1])
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value != "x-decision" {
				walk(n.Content[i+1], path+"/"+escapePointer.Replace(n.Content[i].Value), fn)
			}
		}
	}
}

var escapePointer = strings.NewReplacer("~", "~0", "/", "~1")

func deleteKey(mapping *yaml.Node, key string) {
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if mapping.Content[i].Value == key {
			mapping.Content = append(mapping.Content[:i], mapping.Content[i+2:]...)
			return
		}
	}
}

// value returns the value node of key in mapping, or nil.
func value(mapping *yaml.Node, key string) *yaml.Node {
	if mapping == nil || mapping.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if mapping.Content[i].Value == key {
			return mapping.Content[i+1]
		}
	}
	return nil
}

// allowNull sets `nullable: true` on a schema and, when it keeps an enum,
// adds null to it: OpenAPI 3.0 validators refuse a null outside the enum.
func allowNull(schema *yaml.Node) {
	if schema.Kind != yaml.MappingNode {
		return
	}
	if value(schema, "type") == nil {
		allowNullUntyped(schema)
		return
	}
	if n := value(schema, "nullable"); n != nil {
		n.Value, n.Tag = "true", "!!bool"
	} else {
		schema.Content = append(schema.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: "nullable"},
			&yaml.Node{Kind: yaml.ScalarNode, Value: "true", Tag: "!!bool"})
	}
	if enum := value(schema, "enum"); enum != nil && enum.Kind == yaml.SequenceNode {
		for _, v := range enum.Content {
			if v.Tag == "!!null" {
				return
			}
		}
		enum.Content = append(enum.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "null", Tag: "!!null"})
	}
}

// allowNullUntyped lets null through a schema that has no type of its own
// (allOf, anyOf, a bare $ref). `nullable` means nothing there in OpenAPI
// 3.0, and a validator that turns it into oneOf[null, schema] then fails a
// null the schema already allows (two branches match). So the schema becomes
// anyOf[itself, null]: any number of matching branches passes.
func allowNullUntyped(schema *yaml.Node) {
	inner := &yaml.Node{Kind: yaml.MappingNode}
	var keep []*yaml.Node
	for i := 0; i+1 < len(schema.Content); i += 2 {
		k := schema.Content[i]
		if k.Value == "description" || strings.HasPrefix(k.Value, "x-") {
			keep = append(keep, k, schema.Content[i+1])
			continue
		}
		inner.Content = append(inner.Content, k, schema.Content[i+1])
	}
	if len(inner.Content) == 0 {
		return // an empty schema allows null already
	}
	null := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "type"}, {Kind: yaml.ScalarNode, Value: "string"},
		{Kind: yaml.ScalarNode, Value: "nullable"}, {Kind: yaml.ScalarNode, Value: "true", Tag: "!!bool"},
		{Kind: yaml.ScalarNode, Value: "enum"}, {Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "null", Tag: "!!null"}}},
	}}
	schema.Content = append(keep,
		&yaml.Node{Kind: yaml.ScalarNode, Value: "anyOf"},
		&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{inner, null}})
}
