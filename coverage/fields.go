package coverage

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Field paths name what an answer holds the way a reader says it: object
// properties joined by dots, an array's items as "[]" ("data.items[].id").
// The same naming is produced from a documented schema (schemaFields) and
// from an answer's JSON (jsonFields), so coverage is the set difference.

// maxDepth bounds both walks: the contract nests a handful of levels, and a
// recursive schema or a hostile answer must not walk forever.
const maxDepth = 24

// schemaFields returns every field path of s, sorted. $ref is followed
// (kin-openapi resolves it into Value), allOf, oneOf and anyOf contribute
// the properties of each of their schemas: a field any documented shape may
// carry is a field a client may meet.
func schemaFields(s *openapi3.SchemaRef) []string {
	set := map[string]bool{}
	walkSchema(s, "", set, map[*openapi3.Schema]bool{}, 0)
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func walkSchema(ref *openapi3.SchemaRef, prefix string, set map[string]bool, onPath map[*openapi3.Schema]bool, depth int) {
	if ref == nil || ref.Value == nil || depth > maxDepth {
		return
	}
	s := ref.Value
	if onPath[s] {
		return // a recursive schema: its fields below here are named already
	}
	onPath[s] = true
	defer delete(onPath, s)
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range group {
			walkSchema(sub, prefix, set, onPath, depth+1)
		}
	}
	for name, p := range s.Properties {
		path := join(prefix, name)
		set[path] = true
		walkSchema(p, path, set, onPath, depth+1)
	}
	if s.Items != nil {
		path := prefix + "[]"
		set[path] = true
		walkSchema(s.Items, path, set, onPath, depth+1)
	}
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// jsonFields returns every field path present in the JSON document body
// (nil when it is not JSON). A key present with null counts: the field was
// sent. An array contributes "[]" once it holds an item.
func jsonFields(body []byte) map[string]bool {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil
	}
	return fieldsOf(v)
}

// fieldsOf returns every field path present in v, a JSON document as
// encoding/json's Unmarshal decodes it into an any.
func fieldsOf(v any) map[string]bool {
	set := map[string]bool{}
	walkJSON(v, "", set, 0)
	return set
}

func walkJSON(v any, prefix string, set map[string]bool, depth int) {
	if depth > maxDepth {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, sub := range t {
			if strings.ContainsAny(k, ".[]") {
				continue // no documented field is spelled so; it would alias a path
			}
			path := join(prefix, k)
			set[path] = true
			walkJSON(sub, path, set, depth+1)
		}
	case []any:
		if len(t) > 0 {
			set[prefix+"[]"] = true
		}
		for _, sub := range t {
			walkJSON(sub, prefix+"[]", set, depth+1)
		}
	}
}

// fieldNode is one segment of the documented field paths of a body: its
// children by property name, its items ("[]"), and the field path it ends
// when that path is documented.
type fieldNode struct {
	children map[string]*fieldNode
	items    *fieldNode
	field    string
	end      bool
}

// fieldTree builds the tree of fields, each read back into the segments
// walkJSON joins: a property name (no ".", "[" or "]": walkJSON skips such
// keys) after a ".", or "[]". A path walkJSON cannot make (one starting
// with ".", a stray bracket) is left out: no answer shows it.
func fieldTree(fields []string) *fieldNode {
	root := &fieldNode{}
	for _, f := range fields {
		if f == "" { // a property named "" at the root: walkJSON names it so
			root.field, root.end = f, true
			continue
		}
		if n := root.place(f); n != nil {
			n.field, n.end = f, true
		}
	}
	return root
}

// place finds or adds the node of path p.
func (n *fieldNode) place(p string) *fieldNode {
	first := true
	for {
		switch {
		case strings.HasPrefix(p, "[]"):
			if n.items == nil {
				n.items = &fieldNode{}
			}
			n, p = n.items, p[2:]
		case first || strings.HasPrefix(p, "."):
			if !first {
				p = p[1:]
			}
			end := strings.IndexAny(p, ".[]")
			if end < 0 {
				end = len(p)
			}
			name := p[:end]
			if first && name == "" || end < len(p) && p[end] == ']' {
				return nil
			}
			if n.children == nil {
				n.children = map[string]*fieldNode{}
			}
			c := n.children[name]
			if c == nil {
				c = &fieldNode{}
				n.children[name] = c
			}
			n, p = c, p[end:]
		default:
			return nil
		}
		first = false
		if p == "" {
			return n
		}
	}
}

// markIn marks the fields of m present in v, a JSON document as
// encoding/json decodes it into an any: exactly those of jsonFields(v)
// among m's fields, found by walking v along the tree only.
func (m *mediaState) markIn(v any) {
	m.tree.mark(v, m.observed, 0, true)
}

// mark follows walkJSON: a key at depth d names a path when d is within
// maxDepth, and its value is walked one deeper; an array names "[]" once
// it holds an item. At the root an empty key names the empty path and
// walkJSON joins the keys under it as at the root.
func (n *fieldNode) mark(v any, observed map[string]bool, depth int, root bool) {
	if depth > maxDepth {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, sub := range t {
			if strings.ContainsAny(k, ".[]") {
				continue
			}
			if root && k == "" {
				if n.end {
					observed[n.field] = true
				}
				n.mark(sub, observed, depth+1, true)
				continue
			}
			c := n.children[k]
			if c == nil {
				continue
			}
			if c.end && !observed[c.field] {
				observed[c.field] = true
			}
			c.mark(sub, observed, depth+1, false)
		}
	case []any:
		if len(t) == 0 || n.items == nil {
			return
		}
		if n.items.end && !observed[n.items.field] {
			observed[n.items.field] = true
		}
		for _, sub := range t {
			n.items.mark(sub, observed, depth+1, false)
		}
	}
}
