package drive

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// Values drawn from a field's schema the way clients of the service send
// them: realistic texts within the field's bounds (unique by a number),
// small numbers within its range, each enum member in turn, lists of one
// or two items, objects with their fields.

// value is a valid value of the body field f of op.
func (g *gen) value(op *inputs.Op, f *inputs.Field) any {
	if r := ruleOn(op, f, "among"); r != nil {
		return []any{} // repair chooses among what the call carries
	}
	return g.ofSchema(f.Schema, f.Name, 0)
}

// ofSchema is a valid value of schema s for a field called name.
func (g *gen) ofSchema(s *openapi3.Schema, name string, depth int) any {
	if s == nil {
		return g.text(name)
	}
	if alts := alternatives(s); len(alts) > 0 {
		return g.ofSchema(alts[g.r.IntN(len(alts))], name, depth)
	}
	if len(s.Enum) > 0 {
		return s.Enum[g.turn("enum:"+name)%len(s.Enum)]
	}
	switch typeOf(s) {
	case "string":
		return g.textOf(s, name, -1)
	case "integer":
		lo, hi := bounds(s, 1, 5)
		return json.Number(strconv.Itoa(int(lo) + g.r.IntN(int(hi-lo)+1)))
	case "number":
		lo, hi := bounds(s, 0, 1)
		return json.Number(strconv.FormatFloat(lo+float64(g.r.IntN(5))*(hi-lo)/4, 'f', -1, 64))
	case "boolean":
		return g.chance(2)
	case "array":
		n := 1 + g.r.IntN(2)
		if s.MaxItems != nil && uint64(n) > *s.MaxItems {
			n = int(*s.MaxItems)
		}
		return g.items(s, name, n, depth)
	case "object":
		if depth > 3 {
			return map[string]any{}
		}
		out := map[string]any{}
		for _, p := range sortedProps(s) {
			if slices.Contains(s.Required, p) || g.chance(2) {
				out[p] = g.ofSchema(s.Properties[p].Value, p, depth+1)
			}
		}
		if len(s.Properties) == 0 && s.AdditionalProperties.Has != nil && *s.AdditionalProperties.Has {
			out["mode"] = "weekly"
		}
		return out
	}
	return g.text(name)
}

// items is a list of n values of an array schema's items.
func (g *gen) items(s *openapi3.Schema, name string, n, depth int) []any {
	out := make([]any, 0, n)
	var it *openapi3.Schema
	if s.Items != nil {
		it = s.Items.Value
	}
	for i := 0; i < n; i++ {
		out = append(out, g.ofSchema(it, strings.TrimSuffix(name, "s"), depth+1))
	}
	return out
}

// textOf is a text for a field of schema s: n characters (-1: a realistic
// length within its bounds), unique, matching its format.
func (g *gen) textOf(s *openapi3.Schema, name string, n int) string {
	if s != nil {
		switch s.Format {
		case "uuid":
			g.n++
			return fmt.Sprintf("0d3f5c8e-1b2a-4c6d-9e8f-%012d", g.n)
		case "date-time":
			return "2026-03-01T08:00:00Z"
		case "email":
			g.n++
			return fmt.Sprintf("owner%d@northwind.example", g.n)
		}
	}
	if n < 0 {
		t := g.text(strings.TrimSuffix(name, "_id"))
		if s != nil && s.MaxLength != nil && uint64(utf8.RuneCountInString(t)) > *s.MaxLength {
			t = sized(t, int(*s.MaxLength))
		}
		return t
	}
	return sized(g.text(name), n)
}

// sized makes a text exactly n characters long: its words repeated, its
// unique number kept at the end.
func sized(t string, n int) string {
	t = strings.TrimSpace(t)
	if n <= 0 {
		return ""
	}
	tail := t[strings.LastIndex(t, " ")+1:]
	if utf8.RuneCountInString(tail) >= n {
		return string([]rune(tail)[:n])
	}
	body := []rune(strings.TrimSuffix(t, tail))
	var b []rune
	for len(b)+utf8.RuneCountInString(tail) < n {
		b = append(b, body...)
	}
	b = b[:n-utf8.RuneCountInString(tail)]
	if len(b) > 0 && b[len(b)-1] == ' ' && n > 1 {
		b[len(b)-1] = 'x' // no trailing blank before the number: a server may trim
	}
	return string(b) + tail
}

// formText is a valid text for the form field f: a split field's one item
// (a URL for a field its x-refuse urls rule reads), or a text. One item
// is the seed's own form (§4.3: `urls` is a string); how several are
// joined is decided (D-08), and the value dimensions send lists as well.
func (g *gen) formText(op *inputs.Op, f *inputs.Field) string {
	if f.Split != nil {
		return g.splitText(op, f, 1)
	}
	return g.textOf(f.Schema, f.Name, -1)
}

// splitText is n items of a split field, joined by its separators.
func (g *gen) splitText(op *inputs.Op, f *inputs.Field, n int) string {
	items := make([]string, n)
	for i := range items {
		g.n++
		if ruleOn(op, f, "urls") != nil {
			items[i] = fmt.Sprintf("https://docs.northwind.example/page-%d", g.n)
		} else {
			items[i] = []string{"support", "faq", "warranty", "podpora", "release"}[i%5] + strconv.Itoa(g.n)
		}
	}
	sep := []string{", ", ",", "\n"}[g.r.IntN(3)]
	if f.Split != nil && !strings.Contains(f.Split.Separators, strings.TrimSpace(sep)) && !strings.Contains(f.Split.Separators, sep) {
		sep = string(f.Split.Separators[0])
	}
	return strings.Join(items, sep)
}

// text4query is a valid text for the query parameter f.
func (g *gen) text4query(op *inputs.Op, f *inputs.Field) string {
	v := g.ofSchema(f.Schema, f.Name, 0)
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		if lo, hi := bounds(f.Schema, 1, 3); hi > 3 || lo < 0 {
			return strconv.Itoa(int(math.Max(lo, 0)) + g.r.IntN(3))
		}
		return x.String()
	}
	return fmt.Sprint(v)
}

// files are the next upload's parts of op: the fixture sets in turn.
func (g *gen) files(op *inputs.Op) []refmodel.File {
	var out []refmodel.File
	set := fileSets[g.turn("files:"+op.ID)%len(fileSets)]
	for _, name := range set {
		out = append(out, g.file(name, op.Files.Name))
	}
	return out
}

// tinyFiles are n small readable files of the field.
func tinyFiles(field string, n int) []refmodel.File {
	out := make([]refmodel.File, n)
	for i := range out {
		out[i] = refmodel.File{Field: field, Name: fmt.Sprintf("note-%03d.txt", i+1), Content: []byte(fmt.Sprintf("Note %d: the spare part ships within %d days.\n", i+1, i%9+1))}
	}
	return out
}

// turn counts the draws of a cycle and returns the count before this one.
func (g *gen) turn(key string) int {
	if g.turns == nil {
		g.turns = map[string]int{}
	}
	t := g.turns[key]
	g.turns[key]++
	return t
}

// ruleOn is op's x-refuse rule named rule standing on f, nil when none.
func ruleOn(op *inputs.Op, f *inputs.Field, rule string) *inputs.Rule {
	for i, r := range op.Rules {
		if r.Rule == rule && r.Field == f.Name {
			return &op.Rules[i]
		}
	}
	return nil
}

func alternatives(s *openapi3.Schema) []*openapi3.Schema {
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

func typeOf(s *openapi3.Schema) string {
	if s == nil || s.Type == nil || len(s.Type.Slice()) != 1 {
		return ""
	}
	return s.Type.Slice()[0]
}

// bounds are a number schema's range, within lo..hi where it states none.
func bounds(s *openapi3.Schema, lo, hi float64) (float64, float64) {
	if s == nil {
		return lo, hi
	}
	if s.Min != nil {
		lo = *s.Min
		if hi < lo {
			hi = lo + 4
		}
	}
	if s.Max != nil {
		hi = math.Min(*s.Max, math.Max(lo, hi))
	}
	return lo, hi
}

func sortedProps(s *openapi3.Schema) []string {
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
