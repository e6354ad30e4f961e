package mockserver

import (
	"contractkit/internal/fakeseed"
	"slices"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/getkin/kin-openapi/openapi3"
)

// generator makes data that fits a schema (Prefer: dynamic=true). It is
// seeded, so the same --seed gives the same data; dates come from a fixed
// range because gofakeit's PastDate follows the wall clock.
type generator struct{ f *gofakeit.Faker }

func newGenerator(seed int64) *generator { return &generator{f: fakeseed.Faker(uint64(seed))} }

var (
	genFrom = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	genTo   = time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC)
)

// maxGenDepth bounds recursion through nested schemas. The deepest answer,
// a scored sample's scores in an evaluation page, is nine levels down
// (envelope, data, list, item, results, samples, item, the allOf that
// carries the scores' x-predict mark, the scores): two to spare.
const maxGenDepth = 11

func (g *generator) value(ref *openapi3.SchemaRef, name string, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxGenDepth {
		return nil
	}
	s := ref.Value
	if len(s.AllOf) > 0 {
		merged := map[string]any{}
		for _, sub := range s.AllOf {
			if m, ok := g.value(sub, name, depth+1).(map[string]any); ok {
				for k, v := range m {
					merged[k] = v
				}
			}
		}
		if len(s.Properties) == 0 {
			if len(merged) == 0 {
				return g.value(s.AllOf[0], name, depth+1)
			}
			return merged
		}
	}
	if len(s.AnyOf) > 0 && s.Type == nil && len(s.Properties) == 0 {
		return g.value(s.AnyOf[0], name, depth+1)
	}
	if len(s.OneOf) > 0 && s.Type == nil {
		return g.value(s.OneOf[0], name, depth+1)
	}
	if len(s.Enum) > 0 {
		vals := slices.DeleteFunc(slices.Clone(s.Enum), func(v any) bool { return v == nil })
		return vals[g.f.IntN(len(vals))]
	}
	switch {
	case s.Type.Is("object") || len(s.Properties) > 0:
		out := map[string]any{}
		names := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			out[k] = g.value(s.Properties[k], k, depth+1)
		}
		return out
	case s.Type.Is("array"):
		n := 1 + g.f.IntN(3)
		if s.MaxItems != nil {
			n = min(n, int(*s.MaxItems))
		}
		n = max(n, int(s.MinItems))
		out := make([]any, 0, n)
		for range n {
			out = append(out, g.value(s.Items, singular(name), depth+1))
		}
		return out
	case s.Type.Is("integer"):
		lo, hi := 1.0, 1000.0
		if s.Min != nil {
			lo = *s.Min
		}
		if s.Max != nil {
			hi = *s.Max
		}
		return int64(lo) + int64(g.f.IntN(int(hi-lo)+1))
	case s.Type.Is("number"):
		lo, hi := 0.0, 100.0
		if s.Min != nil {
			lo = *s.Min
		}
		if s.Max != nil {
			hi = *s.Max
		}
		return lo + g.f.Float64()*(hi-lo)
	case s.Type.Is("boolean"):
		return g.f.Bool()
	case s.Type.Is("string"):
		return g.str(s, name)
	}
	return nil
}

func (g *generator) str(s *openapi3.Schema, name string) string {
	switch s.Format {
	case "date-time":
		return g.f.DateRange(genFrom, genTo).UTC().Format(time.RFC3339)
	case "email":
		return strings.ToLower(g.f.Email())
	case "uuid":
		return g.f.UUID()
	}
	var v string
	switch {
	case name == "id" || strings.HasSuffix(name, "_id"):
		v = g.f.UUID()
	case name == "name" || name == "title":
		v = g.f.ProductName()
	case name == "role":
		v = "assistant"
	case strings.Contains(name, "description") || name == "message" || name == "content" || name == "response":
		v = g.f.Sentence()
	default:
		v = g.f.Word()
	}
	if s.MaxLength != nil && uint64(len(v)) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	for uint64(len(v)) < s.MinLength {
		v += "x"
	}
	return v
}

func singular(name string) string { return strings.TrimSuffix(name, "s") }
