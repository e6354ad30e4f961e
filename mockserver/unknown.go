package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/internal/textcut"
)

// Request bodies are closed in the contract (D-29): a field it does not name
// is most often a typo (`titel`). The mock still accepts such a body, as a
// real server that ignores extra fields would, but never silently: the
// unknown fields are taken out before validation (so the closed schema
// judges the rest) and named in the X-Mock-Unknown-Fields answer header, in
// the journal entry and so in the console's Inspector.

// Bounds of what is reported: the names kept per request and the length of
// one name. The body itself is bounded by the contract's JSON body limit.
const (
	maxUnknownNames  = 20
	maxUnknownLength = 64
)

// unknownFields is what one request sent that the contract does not name.
type unknownFields struct {
	names []string // dotted paths, sorted; at most maxUnknownNames when reported
	total int
	// maxDepth is the nesting walked, the contract's JSON depth (D-15).
	maxDepth int
}

func (u *unknownFields) add(path string) {
	u.total++
	u.names = append(u.names, path)
}

// stripUnknown removes from c's JSON body every field a closed object of
// the operation's request schema does not name, and reports them. A body
// that is not JSON, or not an object where the schema has one, is left for
// the validator to refuse.
// top is the body's members when normalize parsed them already (nil: not
// parsed).
func (s *Server) stripUnknown(c *call, top map[string]json.RawMessage) {
	mt := jsonRequest(c.op)
	if mt == nil || mt.Schema == nil || c.body == nil {
		return
	}
	u := unknownFields{maxDepth: s.bounds.limits.JSONDepth}
	if out, changed := stripParsed(mt.Schema.Value, c.body, top, "", &u, 0); changed {
		c.body = out
	}
	s.noteUnknown(c.w, &u)
}

// strip walks raw along s: in a closed object, keys s does not name are
// dropped and reported under path; known keys, and array items, are walked
// when their schema may hold a closed object. changed reports a rewrite.
func strip(s *openapi3.Schema, raw json.RawMessage, path string, u *unknownFields, depth int) (out json.RawMessage, changed bool) {
	return stripParsed(s, raw, nil, path, u, depth)
}

// stripParsed is strip of a raw value whose members, when it is an object,
// may be parsed already: parsed (nil: not parsed). The walk takes them as
// they are and changes them.
func stripParsed(s *openapi3.Schema, raw json.RawMessage, parsed map[string]json.RawMessage, path string, u *unknownFields, depth int) (out json.RawMessage, changed bool) {
	if s == nil || depth > u.maxDepth || !holdsClosed(s, map[*openapi3.Schema]bool{}) {
		return raw, false
	}
	switch b := bytes.TrimSpace(raw); {
	case len(b) > 0 && b[0] == '{':
		obj := parsed
		if obj == nil && json.Unmarshal(b, &obj) != nil {
			return raw, false
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		closed := s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has
		for _, k := range keys {
			p := s.Properties[k]
			switch {
			case p != nil:
				if v, ch := strip(p.Value, obj[k], joinPath(path, k), u, depth+1); ch {
					obj[k], changed = v, true
				}
			case closed:
				u.add(joinPath(path, k))
				delete(obj, k)
				changed = true
			}
		}
		if changed {
			if out, err := json.Marshal(obj); err == nil {
				return out, true
			}
		}
	case len(b) > 0 && b[0] == '[' && s.Items != nil:
		var items []json.RawMessage
		if json.Unmarshal(b, &items) != nil {
			return raw, false
		}
		for i, it := range items {
			if v, ch := strip(s.Items.Value, it, fmt.Sprintf("%s[%d]", path, i), u, depth+1); ch {
				items[i], changed = v, true
			}
		}
		if changed {
			if out, err := json.Marshal(items); err == nil {
				return out, true
			}
		}
	}
	return raw, false
}

// holdsClosed reports whether a value of s may hold a closed object, so
// that only those parts of a body are decoded.
func holdsClosed(s *openapi3.Schema, seen map[*openapi3.Schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	if ap := s.AdditionalProperties.Has; ap != nil && !*ap {
		return true
	}
	if s.Items != nil && holdsClosed(s.Items.Value, seen) {
		return true
	}
	for _, p := range s.Properties {
		if holdsClosed(p.Value, seen) {
			return true
		}
	}
	return false
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// formFields returns the part names the multipart request schema of op
// names (nil: the operation takes no form).
func formFields(op *openapi3.Operation) map[string]*openapi3.SchemaRef {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get("multipart/form-data")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	return mt.Schema.Value.Properties
}

// noteUnknown names u's fields in the answer header and the journal entry
// (if w records one); nothing when there are none.
func (s *Server) noteUnknown(w http.ResponseWriter, u *unknownFields) {
	if u.total == 0 {
		return
	}
	slices.Sort(u.names)
	if len(u.names) > maxUnknownNames {
		u.names = u.names[:maxUnknownNames]
	}
	for i, n := range u.names {
		u.names[i] = textcut.Shorten(n, maxUnknownLength)
	}
	w.Header().Set("X-Mock-Unknown-Fields", unknownHeader(u))
	if jw := journalWriterOf(w); jw != nil {
		jw.unknown = &unknownFields{names: slices.Clone(u.names), total: u.total}
	}
}

// unknownHeader lists the names for a header: a name of plain visible
// ASCII as it is, any other quoted with ASCII escapes (no byte of a JSON key
// can break the header), and a count of the names left out.
func unknownHeader(u *unknownFields) string {
	parts := make([]string, 0, len(u.names)+1)
	for _, n := range u.names {
		if plainName(n) {
			parts = append(parts, n)
		} else {
			parts = append(parts, strconv.QuoteToASCII(n))
		}
	}
	if more := u.total - len(u.names); more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(parts, ", ")
}

func plainName(n string) bool {
	for i := 0; i < len(n); i++ {
		if c := n[i]; c < 0x21 || c > 0x7e || c == ',' || c == '"' || c == '\\' {
			return false
		}
	}
	return n != ""
}
