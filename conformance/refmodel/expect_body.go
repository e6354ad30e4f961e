package refmodel

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// How the model reads a request's body as a server does before judging it:
// a form's fields in several parts, a JSON body padded past its bound.

// parts reads a form whose fields come in several parts as a server does
// (D-08): a list field's parts (an x-split text, an array) are joined, any
// other field is read from its first part.
func (m *Model) parts(x *expectation) {
	f := x.call.Form
	if f == nil || x.op.body == nil {
		return
	}
	var out map[string][]string
	for name, vs := range f.Fields {
		if len(vs) < 2 {
			continue
		}
		if out == nil {
			out = make(map[string][]string, len(f.Fields))
			for k, v := range f.Fields {
				out[k] = v
			}
		}
		s := propSchema(x.op.body, name)
		_, split := s.Extensions["x-split"]
		switch {
		case s != nil && split:
			out[name] = []string{strings.Join(vs, "\n")}
		case s != nil && s.Type != nil && s.Type.Is("array"):
		default:
			out[name] = vs[:1]
			if x.multi == nil {
				x.multi = map[string]bool{}
			}
			x.multi[name] = true
		}
	}
	if out != nil {
		form := *f
		form.Fields = out
		x.call.Form = &form
	}
}

// shrunk is a JSON body as the validators see it: a huge text in a field
// the schema does not name (a body padded past its bound) cut short, the
// same in what the schema says of it (the declared view takes any such
// field, the contract as written none) and far cheaper to validate. The
// body's size is judged apart.
func shrunk(body any, s *openapi3.Schema) (any, int) {
	b, ok := body.(map[string]any)
	if !ok || s == nil {
		return body, 0
	}
	cut := 0
	var out map[string]any
	for k, v := range b {
		if t, isText := v.(string); isText && len(t) > maxPlainBody && s.Properties[k] == nil {
			if out == nil {
				out = make(map[string]any, len(b))
				for k2, v2 := range b {
					out[k2] = v2
				}
			}
			out[k], cut = t[:64], cut+len(t)-64
		}
	}
	if out == nil {
		return body, 0
	}
	return out, cut
}
