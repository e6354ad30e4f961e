package refmodel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/judge"
)

// How a refusal of a request the model predicts valid is classed. Every
// value the request carries is looked at:
//
//   - named by the reference: a boolean (its whole domain is the type the
//     reference gives), a member of an enum the reference states (a schema
//     with an x-seed mark), a number within a range the reference states
//     (an x-seed schema with bounds: temperature 0..1), a value an x-named
//     mark lists (`ragas`, `beir`), the id of a live resource of the
//     caller's account;
//   - or accepted: the same value in the same field of the same operation
//     was answered with a success before, by this server, or one of the
//     same shape (a text no longer and of characters it took, a number
//     within the range it took): it meets no limit the server has.
//
// A refusal of a request whose values are all named or accepted rests on
// no limit the reference leaves open: it is Declared when the model's
// prediction of success rests on the reference alone, Decided when it
// rests on a decision (a state D-12 allows, a name D-19 calls free).
// Any other value (a new text, a number the reference gives no range for)
// may meet a limit the reference does not show (§8.4): the refusal is
// Noted.

// maxAccepted bounds the values remembered per operation and field.
const maxAccepted = 256

// leaf is one value a request carries, with its schema.
type leaf struct {
	key    string // "body:samples[].question", "query:status", "path:model_id"
	schema *openapi3.Schema
	value  any
}

// leaves lists every value of the call.
func (m *Model) leaves(x *expectation) []leaf {
	var out []leaf
	op := x.op
	for _, p := range op.params {
		var v string
		switch {
		case p.In == "path" && x.call.Path != nil:
			s, ok := x.call.Path[p.Name]
			if !ok {
				continue
			}
			v = s
		case p.In == "query" && x.call.Query.Has(p.Name):
			v = x.call.Query.Get(p.Name)
		default:
			continue
		}
		var s *openapi3.Schema
		if p.Schema != nil {
			s = p.Schema.Value
		}
		out = append(out, leaf{p.In + ":" + p.Name, s, queryValue(s, v)})
	}
	if x.call.Form != nil && op.body != nil {
		for _, name := range sortedKeys(x.call.Form.Fields) {
			for _, v := range x.call.Form.Fields[name] {
				out = append(out, leaf{"form:" + name, propSchema(op.body, name), v})
			}
		}
		for _, f := range x.call.files(op) {
			sum := sha256.Sum256(f.Content)
			out = append(out, leaf{"form:" + f.Field, nil, f.Name + "#" + hex.EncodeToString(sum[:8])})
		}
	} else if op.body != nil && x.body != nil {
		walkLeaves("body:", op.body, x.body, &out)
	}
	return out
}

// queryValue reads a parameter's text as its schema's type says.
func queryValue(s *openapi3.Schema, v string) any {
	if s != nil && s.Type != nil && (s.Type.Is("integer") || s.Type.Is("number")) {
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return json.Number(v)
		}
	}
	if s != nil && s.Type != nil && s.Type.Is("boolean") && (v == "true" || v == "false") {
		return v == "true"
	}
	return v
}

func propSchema(s *openapi3.Schema, name string) *openapi3.Schema {
	if s == nil || s.Properties[name] == nil {
		return nil
	}
	return s.Properties[name].Value
}

func walkLeaves(key string, s *openapi3.Schema, v any, out *[]leaf) {
	switch x := v.(type) {
	case map[string]any:
		for _, name := range sortedKeys(x) {
			sep := "."
			if strings.HasSuffix(key, ":") {
				sep = ""
			}
			walkLeaves(key+sep+name, propSchema(s, name), x[name], out)
		}
	case []any:
		var items *openapi3.Schema
		if s != nil && s.Items != nil {
			items = s.Items.Value
		}
		for _, it := range x {
			walkLeaves(key+"[]", items, it, out)
		}
	default:
		*out = append(*out, leaf{key, s, v})
	}
}

// unnamed lists the keys of the call's values that are neither named by
// the reference nor accepted before.
func (m *Model) unnamed(x *expectation) []string {
	var out []string
	for _, l := range m.leaves(x) {
		if !m.named(x, l) {
			out = append(out, l.key)
		}
	}
	return out
}

func (m *Model) named(x *expectation, l leaf) bool {
	if l.value == nil {
		return true
	}
	name := l.key[strings.LastIndexAny(l.key, ":.")+1:]
	if k := m.cat.byParam[name]; k != nil {
		if r := x.acct.find(k, idString(l.value)); r != nil && r.gone == live {
			return true
		}
	}
	if m.accepted[x.op.id+" "+l.key].like(l.value) {
		return true
	}
	s := l.schema
	if s == nil {
		return false
	}
	if _, ok := l.value.(bool); ok && s.Type != nil && s.Type.Is("boolean") {
		return true
	}
	_, seed := s.Extensions["x-seed"]
	if seed && len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if same(l.value, e) {
				return true
			}
		}
	}
	if f, ok := number(l.value); ok && seed && (s.Min != nil || s.Max != nil) {
		if (s.Min == nil || f >= *s.Min) && (s.Max == nil || f <= *s.Max) {
			return true
		}
	}
	if n, ok := s.Extensions["x-named"].(map[string]any); ok {
		for _, v := range stringList(n["values"]) {
			if l.value == v {
				return true
			}
		}
	}
	return false
}

// accept remembers the values of a call the server answered with a
// success.
func (m *Model) accept(x *expectation) {
	m.took[x.op.id] = true
	for _, l := range m.leaves(x) {
		key := x.op.id + " " + l.key
		a := m.accepted[key]
		if a == nil {
			a = &accepted{values: map[string]bool{}, runes: map[rune]bool{}}
			m.accepted[key] = a
		}
		a.add(l.value)
	}
}

// accepted is what a server accepted in one field of one operation: the
// values (bounded), and their shape: the characters of its texts, their
// longest length, the range of its numbers. A value of that shape met no
// limit the server has when it was accepted.
type accepted struct {
	values     map[string]bool
	runes      map[rune]bool
	longest    int
	lo, hi     float64
	hasNumbers bool
}

func (a *accepted) add(v any) {
	if len(a.values) < maxAccepted {
		a.values[acceptKey(v)] = true
	}
	switch x := v.(type) {
	case string:
		if len(a.runes) < 4*maxAccepted {
			for _, r := range x {
				a.runes[shapeRune(r)] = true
			}
		}
		a.longest = max(a.longest, utf8.RuneCountInString(x))
	default:
		if f, ok := number(v); ok {
			if !a.hasNumbers || f < a.lo {
				a.lo = f
			}
			if !a.hasNumbers || f > a.hi {
				a.hi = f
			}
			a.hasNumbers = true
		}
	}
}

// like reports whether v is a value the server accepted, or one of the
// same shape: a text no longer, of characters it took, a number within the
// range it took.
func (a *accepted) like(v any) bool {
	if a == nil {
		return false
	}
	if a.values[acceptKey(v)] {
		return true
	}
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > a.longest || x == "" {
			return false
		}
		for _, r := range x {
			if !a.runes[shapeRune(r)] {
				return false
			}
		}
		return true
	default:
		f, ok := number(v)
		return ok && a.hasNumbers && f >= a.lo && f <= a.hi
	}
}

// shapeRune is the character r stands for in a text's shape: any ASCII
// digit for a digit (a server that took "name 8" took the shape of
// "name 42": the unique numbers a client stamps on names differ in their
// digits only), r itself otherwise.
func shapeRune(r rune) rune {
	if r >= '0' && r <= '9' {
		return '0'
	}
	return r
}

func acceptKey(v any) string {
	b, _ := json.Marshal(judge.Canonical(v))
	return string(b)
}
