package inputs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// valueDims are a field's values: absent, present, empty, at its bounds and
// just past them, each named value, a value of another type.
func valueDims(op *Op, f *Field) []Dimension {
	var out []Dimension
	add := func(what string, v Value) {
		out = append(out, Dimension{Family: FamilyValue, Field: f.Loc(), Name: f.Loc() + " = " + what, Value: &v})
	}
	s, d := f.Schema, f.Declared
	if s == nil {
		return nil
	}
	declared := func(check func(*openapi3.Schema) bool) bool { return d != nil && check(d) }
	if f.Required {
		add("absent (required)", Value{Absent: true, Invalid: true, Declared: f.DeclaredRequired})
	} else {
		add("absent", Value{Absent: true})
	}
	for i, alt := range alternativesOf(s) {
		add(fmt.Sprintf("its alternative %d (%s)", i+1, describeSchema(alt)), Value{Length: -1, Alt: i + 1})
	}
	switch {
	case f == op.Files:
		add("one file", Value{Length: 1})
		add("two files", Value{Length: 2})
		if s.MaxItems != nil {
			n := int(*s.MaxItems)
			add(fmt.Sprintf("%d files (maxItems)", n), Value{Length: n})
			add(fmt.Sprintf("%d files (over maxItems)", n+1), Value{Length: n + 1, Invalid: true, Declared: declared(func(x *openapi3.Schema) bool { return x.MaxItems != nil })})
		}
	case f.Split != nil:
		add("one item", Value{Length: 1})
		add("several items", Value{Length: 3})
		add("empty", Value{Literal: "", HasLiteral: true})
		add(fmt.Sprintf("%d items (x-split maxItems)", f.Split.MaxItems), Value{Length: f.Split.MaxItems})
		add(fmt.Sprintf("%d items (over x-split maxItems)", f.Split.MaxItems+1), Value{Length: f.Split.MaxItems + 1, Invalid: true})
	case len(s.Enum) > 0:
		for _, v := range s.Enum {
			add(fmt.Sprint(v), Value{Literal: v, HasLiteral: true, Named: true})
		}
		add(`"not-a-member" (outside its enum)`, Value{Literal: "not-a-member", HasLiteral: true, Invalid: true, Declared: declared(func(x *openapi3.Schema) bool { return len(x.Enum) > 0 })})
	default:
		typedDims(f, add, declared)
	}
	for _, v := range f.Named {
		if len(s.Enum) == 0 {
			add(fmt.Sprintf("%v (a value the reference names)", v), Value{Literal: v, HasLiteral: true, Named: true})
		}
	}
	if wrong, ok := wrongType(f); ok {
		add(fmt.Sprintf("%s (not a%s %s)", show(wrong), article(f.Type()), f.Type()), Value{Literal: wrong, HasLiteral: true, Invalid: true,
			Declared: declared(func(x *openapi3.Schema) bool { return schemaType(x) != "" })})
	}
	return out
}

// typedDims are the values of a field by its type.
func typedDims(f *Field, add func(string, Value), declared func(func(*openapi3.Schema) bool) bool) {
	s := f.Schema
	_, seed := s.Extensions["x-seed"]
	switch f.Type() {
	case "string":
		add("a text", Value{Length: -1})
		add(`"" (empty)`, Value{Literal: "", HasLiteral: true, Invalid: s.MinLength > 0, Declared: declared(func(x *openapi3.Schema) bool { return x.MinLength > 0 })})
		if s.MinLength > 1 {
			add(fmt.Sprintf("%d characters (minLength)", s.MinLength), Value{Length: int(s.MinLength)})
		}
		if s.MaxLength != nil {
			n := int(*s.MaxLength)
			add(fmt.Sprintf("%d characters (maxLength)", n), Value{Length: n})
			add(fmt.Sprintf("%d characters (over maxLength)", n+1), Value{Length: n + 1, Invalid: true, Declared: declared(func(x *openapi3.Schema) bool { return x.MaxLength != nil })})
		}
		if bad, ok := breaking(s.Pattern); ok {
			add(fmt.Sprintf("%s (breaking its pattern)", show(bad)), Value{Literal: bad, HasLiteral: true, Invalid: true, Declared: declared(func(x *openapi3.Schema) bool { return x.Pattern != "" })})
		}
	case "integer", "number":
		step := 1.0
		if f.Type() == "number" {
			step = 0.5
		}
		if s.Min != nil {
			add(fmt.Sprintf("%s (minimum)", num(*s.Min)), Value{Literal: num(*s.Min), HasLiteral: true, Named: seed})
			add(fmt.Sprintf("%s (below minimum)", num(*s.Min-step)), Value{Literal: num(*s.Min - step), HasLiteral: true, Invalid: true, Declared: declared(func(x *openapi3.Schema) bool { return x.Min != nil })})
		}
		if s.Max != nil {
			add(fmt.Sprintf("%s (maximum)", num(*s.Max)), Value{Literal: num(*s.Max), HasLiteral: true, Named: seed})
			add(fmt.Sprintf("%s (over maximum)", num(*s.Max+step)), Value{Literal: num(*s.Max + step), HasLiteral: true, Invalid: true, Declared: declared(func(x *openapi3.Schema) bool { return x.Max != nil })})
		}
		if s.Min == nil && s.Max == nil {
			add("a number", Value{Length: -1})
		}
	case "boolean":
		add("true", Value{Literal: true, HasLiteral: true, Named: true})
		add("false", Value{Literal: false, HasLiteral: true, Named: true})
	case "array":
		add("[] (empty)", Value{Literal: []any{}, HasLiteral: true, Invalid: s.MinItems > 0, Declared: declared(func(x *openapi3.Schema) bool { return x.MinItems > 0 })})
		add("one item", Value{Length: 1})
		if s.MaxItems != nil {
			n := int(*s.MaxItems)
			add(fmt.Sprintf("%d items (maxItems)", n), Value{Length: n})
			add(fmt.Sprintf("%d items (over maxItems)", n+1), Value{Length: n + 1, Invalid: true, Declared: declared(func(x *openapi3.Schema) bool { return x.MaxItems != nil })})
		}
	case "object":
		add("{} (empty)", Value{Literal: map[string]any{}, HasLiteral: true})
		add("every field given", Value{Length: -1})
	}
}

// wrongType is a value of another JSON type than the field's, one no
// lenient reading (x-lenient types, D-21) takes for it.
func wrongType(f *Field) (any, bool) {
	lenient := func(t string) bool {
		for _, l := range f.Lenient {
			if l == t {
				return true
			}
		}
		return false
	}
	switch f.Type() {
	case "string":
		if f.In == "query" || f.In == "form" || f.In == "path" || lenient("integer") || lenient("number") {
			return nil, false // a query or form value is text whatever it spells
		}
		return json.Number("5"), true
	case "integer", "number":
		if lenient("string") {
			return nil, false
		}
		return "ten", true
	case "boolean":
		return "perhaps", true
	case "array", "object":
		if f.In == "form" {
			return nil, false
		}
		return "a text", true
	}
	return nil, false
}

// alternativesOf are the branches of a schema's oneOf or anyOf.
func alternativesOf(s *openapi3.Schema) []*openapi3.Schema {
	var out []*openapi3.Schema
	for _, refs := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, r := range refs {
			if r.Value != nil {
				out = append(out, r.Value)
			}
		}
	}
	return out
}

func describeSchema(s *openapi3.Schema) string {
	if t := schemaType(s); t != "" {
		return t
	}
	return "any"
}

// breaking is a text a pattern refuses ("", false without a pattern or
// when none of the candidates breaks it).
func breaking(pattern string) (string, bool) {
	if pattern == "" {
		return "", false
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", false
	}
	for _, c := range []string{"bad!name", "what?", "a;b", "tab\tbed", "<tag>"} {
		if !re.MatchString(c) {
			return c, true
		}
	}
	return "", false
}

// num renders a bound as a JSON number.
func num(f float64) json.Number {
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func article(t string) string {
	if strings.IndexAny(t, "aeiou") == 0 {
		return "n"
	}
	return ""
}
