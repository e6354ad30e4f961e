package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// J, the lenient JSON accessor every check reads bodies with, the JSONPath
// subset the contract validator writes field paths in, and the JSON
// pointers (RFC 6901) findings locate values with.

// J is a parsed JSON value with lenient accessors: a missing key or a
// value of another type gives the zero J, never a panic.
type J struct{ v any }

// Of wraps a value decoded from JSON (with numbers as json.Number, as
// ParseJSON decodes them).
func Of(v any) J { return J{v} }

// ParseJSON parses b, keeping numbers exact (json.Number).
func ParseJSON(b []byte) (J, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return J{}, err
	}
	if dec.More() {
		return J{}, fmt.Errorf("more than one JSON value")
	}
	return J{v}, nil
}

// Parsed is a body parsed once for every reader of it: Value is what
// encoding/json's Unmarshal made of it (numbers as float64, the form the
// contract's validator reads), OK false when it is not one JSON value.
type Parsed struct {
	Value any
	OK    bool
}

// Parse parses b with encoding/json.Unmarshal.
func Parse(b []byte) Parsed {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return Parsed{}
	}
	return Parsed{Value: v, OK: true}
}

// Get follows keys (strings) and indexes (ints).
func (j J) Get(path ...any) J {
	v := j.v
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k < 0 || k >= len(a) {
				return J{}
			}
			v = a[k]
		}
	}
	return J{v}
}

// Path resolves a JSONPath of the validator's subset.
func (j J) Path(p string) (J, bool) {
	v := j
	for _, s := range pathSegments(p) {
		if s.index >= 0 {
			a, ok := v.v.([]any)
			if !ok || s.index >= len(a) {
				return J{}, false
			}
			v = J{a[s.index]}
		} else {
			m, ok := v.v.(map[string]any)
			if !ok {
				return J{}, false
			}
			x, ok := m[s.key]
			if !ok {
				return J{}, false
			}
			v = J{x}
		}
	}
	return v, true
}

// Pointer resolves a JSON pointer (RFC 6901): "" is the whole value,
// "/data/0/id" a member of an element.
func (j J) Pointer(p string) (J, bool) {
	v := j
	for _, seg := range pointerSegments(p) {
		switch t := v.v.(type) {
		case map[string]any:
			x, ok := t[seg]
			if !ok {
				return J{}, false
			}
			v = J{x}
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(t) {
				return J{}, false
			}
			v = J{t[n]}
		default:
			return J{}, false
		}
	}
	return v, true
}

// Kind names the JSON type of the value: object, array, string, number,
// boolean or null.
func (j J) Kind() string { return jsonKind(j.v) }

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	default:
		return "number"
	}
}

// Value returns the underlying value.
func (j J) Value() any { return j.v }

// Exists reports whether the value is present and not null.
func (j J) Exists() bool { return j.v != nil }

// Str returns the string, or "".
func (j J) Str() string { s, _ := j.v.(string); return s }

// IsString reports whether the value is a string.
func (j J) IsString() bool { _, ok := j.v.(string); return ok }

// ID renders an id given as a number or a string; "" for anything else.
func (j J) ID() string {
	switch t := j.v.(type) {
	case json.Number:
		return t.String()
	case string:
		return t
	}
	return ""
}

// Int returns the integer value and whether it is one.
func (j J) Int() (int64, bool) {
	n, ok := j.v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// Bool returns the boolean value and whether it is one.
func (j J) Bool() (bool, bool) { b, ok := j.v.(bool); return b, ok }

// Items returns the elements of an array (nil for anything else).
func (j J) Items() []J {
	a, _ := j.v.([]any)
	out := make([]J, len(a))
	for i, v := range a {
		out[i] = J{v}
	}
	return out
}

// IsArray reports whether the value is an array.
func (j J) IsArray() bool { _, ok := j.v.([]any); return ok }

// String renders the value as compact JSON.
func (j J) String() string {
	b, err := json.Marshal(j.v)
	if err != nil {
		return fmt.Sprint(j.v)
	}
	return string(b)
}

type segment struct {
	key   string
	index int
}

// pathSegments parses the JSONPath subset the validator writes: $, .name,
// ['name'] and [n].
func pathSegments(p string) []segment {
	p = strings.TrimPrefix(p, "$")
	var out []segment
	for len(p) > 0 {
		switch {
		case p[0] == '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, segment{key: p[:end], index: -1})
			p = p[end:]
		case strings.HasPrefix(p, "['"):
			end := strings.Index(p, "']")
			if end < 0 {
				return out
			}
			out = append(out, segment{key: p[2:end], index: -1})
			p = p[end+2:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return out
			}
			n, err := strconv.Atoi(p[1:end])
			if err != nil {
				return out
			}
			out = append(out, segment{index: n})
			p = p[end+1:]
		default:
			return out
		}
	}
	return out
}

// Pointer writes path segments as a JSON pointer (RFC 6901).
func Pointer(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(pointerEscape.Replace(s))
	}
	return b.String()
}

var (
	pointerEscape   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescape = strings.NewReplacer("~1", "/", "~0", "~")
)

// pointerSegments splits a JSON pointer into its unescaped segments.
func pointerSegments(p string) []string {
	if p == "" || p[0] != '/' {
		return nil
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		parts[i] = pointerUnescape.Replace(s)
	}
	return parts
}

// jsonPathPointer turns a JSONPath of the validator's subset ("$.data[0].id")
// into a JSON pointer ("/data/0/id").
func jsonPathPointer(p string) string {
	var segs []string
	for _, s := range pathSegments(p) {
		if s.index >= 0 {
			segs = append(segs, strconv.Itoa(s.index))
		} else {
			segs = append(segs, s.key)
		}
	}
	return Pointer(segs...)
}

// Canonical is v as encoding/json reads it back without UseNumber
// (numbers as float64): the form the schema validator reads, and in which
// equal values compare equal whatever their Go types.
func Canonical(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}
