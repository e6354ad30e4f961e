package explore

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"contractkit/exchange"
	"contractkit/internal/fakeseed"

	"github.com/getkin/kin-openapi/openapi3"
	"pgregory.net/rapid"
)

// Values the explore phase sends: drawn by rapid (so a failure shrinks to
// small, plain values), realistic from gofakeit, or taken from a catalogue
// of the unusual that real servers trip over. Every value stays within the
// limits the contract as written gives (lengths, bounds, enums): valid under
// the declared view and under our decisions alike, so a refusal is the
// server's own limit, never the generator's.

// unusualText is text outside ASCII and outside habit: every script the
// service's users write in (its users write Czech), right-to-left,
// combining marks, invisible characters, emoji beyond the BMP, markup and
// quoting that naive servers interpolate. No leading or trailing space: a
// server may trim, which the seed does not forbid.
var unusualText = []string{
	"Příliš žluťoučký kůň úpěl ďábelské ódy",
	"Dotazník — školení zaměstnanců 2026",
	"Größenänderung über Öl-Straße",
	"数据集与模型评估",
	"データセットの説明",
	"지식 그래프",
	"Распознавание речи",
	"مرحبا بالعالم",
	"שלום עולם",
	"e\u0301te\u0301 cafe\u0301 n\u0303",
	"zero\u200bwidth\u200djoiner",
	"🚀 launch 📊 report 🧪",
	"👩‍👩‍👧 family",
	"tab\there\nnewline",
	`quote " apostrophe ' backslash \ slash /`,
	"<b>bold</b> & <script>alert(1)</script>",
	"'; DROP TABLE models; --",
	"%s %d {{name}} ${HOME} $(id)",
	"ž",
	"x",
}

// unknownNumericIDs are integer ids no resource has: zero, negative, past
// 32 bits, at the edge of what JSON numbers carry exactly.
var unknownNumericIDs = []int64{0, -1, 2147483648, 9007199254740991}

// unknownPathIDs are path ids no resource has, as strings in the path:
// the numbers above, one past 64 bits, and text no id is.
var unknownPathIDs = []string{"0", "-1", "2147483648", "9007199254740991", "99999999999999999999999", "ř", "数据", "not-an-id", "00000000-0000-0000-0000-000000000000"}

// gen draws the values of one test case.
type gen struct {
	t *rapid.T
}

// pick draws an index below n.
func (g gen) pick(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(g.t, label)
}

// chance draws true about one time in n (shrinking towards false).
func (g gen) chance(n int, label string) bool {
	return rapid.IntRange(0, n-1).Draw(g.t, label) == n-1
}

// text draws a string for s: realistic, unusual, or at a length bound.
func (g gen) text(s *openapi3.Schema, label string) string {
	lo, hi := int(s.MinLength), math.MaxInt
	if s.MaxLength != nil {
		hi = int(*s.MaxLength)
	}
	var v string
	switch g.pick(5, label+".kind") {
	case 0:
		v = "ok"
	case 1:
		f := fakeseed.Faker(uint64(rapid.IntRange(0, 1<<16).Draw(g.t, label+".fake")))
		v = f.Sentence()
	case 2:
		v = unusualText[g.pick(len(unusualText), label+".unusual")]
	case 3:
		f := fakeseed.Faker(uint64(rapid.IntRange(0, 1<<16).Draw(g.t, label+".fake")))
		v = unusualText[g.pick(len(unusualText), label+".unusual")] + " " + f.Company()
	case 4:
		// At a bound: the longest the contract allows (in characters, as
		// JSON Schema counts them), or the shortest.
		if hi != math.MaxInt && g.chance(2, label+".max") {
			v = strings.Repeat("ř数🚀a", hi/4+1)
		} else {
			v = strings.Repeat("ž", max(lo, 1))
		}
	}
	if ex, ok := s.Example.(string); ok && !g.chance(4, label+".example") {
		v = ex // a value of a form the contract only describes (a list of URLs)
	}
	if s.Pattern != "" {
		if re := patternOf(s.Pattern); re != nil && !re.MatchString(fitLength(v, lo, hi)) {
			v = rapid.StringMatching(s.Pattern).Draw(g.t, label+".pattern")
		}
	}
	if s.Format == "uuid" {
		return uuidFrom(rapid.Uint64().Draw(g.t, label+".uuid"))
	}
	if s.Format == "email" {
		return "owner@northwind.example"
	}
	if s.Format == "date-time" {
		return "2026-03-01T08:00:00Z"
	}
	return fitLength(v, lo, hi)
}

var patterns sync.Map // pattern → *regexp.Regexp (nil when it does not compile)

// patternOf compiles a schema pattern once.
func patternOf(p string) *regexp.Regexp {
	if re, ok := patterns.Load(p); ok {
		return re.(*regexp.Regexp)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	patterns.Store(p, re)
	return re
}

// fitLength cuts or pads v to [lo, hi] characters, without a space at
// either end.
func fitLength(v string, lo, hi int) string {
	if utf8.RuneCountInString(v) > hi {
		r := []rune(v)
		v = strings.TrimSpace(string(r[:hi]))
	}
	for utf8.RuneCountInString(v) < lo {
		v += "ž"
	}
	return v
}

// uuidFrom renders a version-4 UUID from n.
func uuidFrom(n uint64) string {
	h := fmt.Sprintf("%016x%016x", n, ^n)
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}

// integer draws an integer within the schema's bounds: at a bound, a
// small number, or one at the edges of what servers store.
func (g gen) integer(s *openapi3.Schema, label string) int64 {
	lo, hi := int64(-(1<<53 - 1)), int64(1<<53-1)
	if s.Min != nil {
		lo = int64(math.Ceil(*s.Min))
	}
	if s.Max != nil {
		hi = int64(math.Floor(*s.Max))
	}
	var candidates []int64
	for _, c := range []int64{lo, hi, 0, 1, -1, 7, 42, 2147483647, 2147483648} {
		if c >= lo && c <= hi {
			candidates = append(candidates, c)
		}
	}
	if len(candidates) == 0 || g.chance(3, label+".range") {
		return rapid.Int64Range(lo, hi).Draw(g.t, label)
	}
	return candidates[g.pick(len(candidates), label+".edge")]
}

// number draws a number within the schema's bounds.
func (g gen) number(s *openapi3.Schema, label string) float64 {
	lo, hi := -1e9, 1e9
	if s.Min != nil {
		lo = *s.Min
	}
	if s.Max != nil {
		hi = *s.Max
	}
	candidates := []float64{}
	for _, c := range []float64{lo, hi, 0, 0.5, 1, 0.001, 123.456} {
		if c >= lo && c <= hi {
			candidates = append(candidates, c)
		}
	}
	if len(candidates) == 0 || g.chance(3, label+".range") {
		return rapid.Float64Range(lo, hi).Draw(g.t, label)
	}
	return candidates[g.pick(len(candidates), label+".edge")]
}

// value draws a JSON value valid under s. ref draws the id of a resource
// for a property that names one (nil: no such property here).
func (g gen) value(s *openapi3.Schema, label string, ref func(name string, s *openapi3.Schema) (any, bool)) any {
	s = flatten(s)
	if len(s.Enum) > 0 {
		var vals []any
		for _, v := range s.Enum {
			if v != nil {
				vals = append(vals, v)
			}
		}
		if len(vals) > 0 {
			return vals[g.pick(len(vals), label+".enum")]
		}
	}
	switch {
	case s.Type.Is("string"):
		return g.text(s, label)
	case s.Type.Is("integer"):
		return g.integer(s, label)
	case s.Type.Is("number"):
		return g.number(s, label)
	case s.Type.Is("boolean"):
		return rapid.Bool().Draw(g.t, label)
	case s.Type.Is("array"):
		lo, hi := int(s.MinItems), 3
		if s.MaxItems != nil {
			hi = min(hi, int(*s.MaxItems))
		}
		n := rapid.IntRange(lo, max(lo, hi)).Draw(g.t, label+".len")
		out := make([]any, n)
		for i := range out {
			item := &openapi3.Schema{}
			if s.Items != nil && s.Items.Value != nil {
				item = s.Items.Value
			}
			out[i] = g.value(item, fmt.Sprintf("%s[%d]", label, i), nil)
		}
		return out
	case s.Type.Is("object") || len(s.Properties) > 0:
		return g.object(s, label, ref)
	}
	return unusualText[g.pick(len(unusualText), label+".any")]
}

// object draws an object: every required property, each optional one
// present or absent; properties that are additions of this contract are
// left out (a server may not know them).
func (g gen) object(s *openapi3.Schema, label string, ref func(string, *openapi3.Schema) (any, bool)) map[string]any {
	out := map[string]any{}
	for _, name := range sortedProperties(s) {
		p := s.Properties[name].Value
		if p == nil || p.ReadOnly || addition(p.Extensions) || p.Format == "binary" || isBinaryArray(p) {
			continue
		}
		required := slices.Contains(s.Required, name)
		if !required && !rapid.Bool().Draw(g.t, label+"."+name+"?") {
			continue
		}
		if ref != nil {
			if v, ok := ref(name, p); ok {
				out[name] = v
				continue
			}
		}
		out[name] = g.value(p, label+"."+name, nil)
	}
	return out
}

func sortedProperties(s *openapi3.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func isBinaryArray(s *openapi3.Schema) bool {
	return s.Type.Is("array") && s.Items != nil && s.Items.Value != nil && s.Items.Value.Format == "binary"
}

// flatten resolves allOf into one schema and takes the first alternative
// of anyOf and oneOf: a value valid under it is valid under the whole.
func flatten(s *openapi3.Schema) *openapi3.Schema {
	if s == nil {
		return &openapi3.Schema{}
	}
	switch {
	case len(s.AllOf) > 0:
		out := *s
		out.AllOf = nil
		out.Properties = openapi3.Schemas{}
		for k, v := range s.Properties {
			out.Properties[k] = v
		}
		for _, sub := range s.AllOf {
			f := flatten(sub.Value)
			for k, v := range f.Properties {
				out.Properties[k] = v
			}
			out.Required = append(out.Required, f.Required...)
			if out.Type == nil {
				out.Type = f.Type
			}
		}
		return &out
	case len(s.AnyOf) > 0 && s.AnyOf[0].Value != nil:
		return flatten(s.AnyOf[0].Value)
	case len(s.OneOf) > 0 && s.OneOf[0].Value != nil:
		return flatten(s.OneOf[0].Value)
	}
	return s
}

// exploreFile is an upload file part with a name and text outside ASCII.
func (g gen) file(label string) exchange.FormFile {
	f := fakeseed.Faker(uint64(rapid.IntRange(0, 1<<16).Draw(g.t, label+".fake")))
	names := []string{"Přehled školení.md", "poznámky.txt", "数据.md", "notes.md", "report 📊.txt"}
	name := names[g.pick(len(names), label+".name")]
	body := "# " + unusualText[g.pick(len(unusualText), label+".title")] + "\n\n" + f.Paragraph() + "\n"
	return exchange.FormFile{Field: "files", Name: name, Content: []byte(body)}
}
