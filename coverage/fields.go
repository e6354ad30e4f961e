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
