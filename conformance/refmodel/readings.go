package refmodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"contractkit/spec"
)

// The readings a server may give a request that departs from the seed's
// table (x-lenient marks, D-21): a field under another name, a value of
// another JSON type read as the declared one, a file part under another
// name. The model reads the call as such a server does, before anything
// else, and predicts the plain request's answer: a server may refuse the
// reading (400 or 422, noted), or serve it exactly as the plain request —
// the same fields, of the same types.

// applied is one reading the model gave a call.
type applied struct {
	r spec.Reading
	// field is where the value stands once read ("model_id").
	field string
}

// readLeniently reads x's call by its operation's readings: the call the
// rest of the model sees is the plain one, and a refusal of the reading
// may come.
func (m *Model) readLeniently(x *expectation) {
	rs := m.strict.Readings(x.op.id)
	if len(rs) == 0 {
		return
	}
	c := x.call
	var done []applied
	if b, ok := c.Body.(map[string]any); ok {
		nb := make(map[string]any, len(b))
		for k, v := range b {
			nb[k] = v
		}
		for _, r := range rs {
			if v, ok := readValue(nb, r); ok {
				if r.Alias != "" {
					delete(nb, r.Alias)
				}
				nb[r.Field] = v
				done = append(done, applied{r: r, field: r.Field})
			}
		}
		c.Body, x.body = nb, nb
	}
	if f := c.Form; f != nil {
		nf := &Form{Fields: map[string][]string{}, Files: slices.Clone(f.Files)}
		for k, v := range f.Fields {
			nf.Fields[k] = v
		}
		for _, r := range rs {
			if r.Alias == "" || formGives(nf, r.Field) || !formGives(nf, r.Alias) {
				continue
			}
			if vs, ok := nf.Fields[r.Alias]; ok {
				nf.Fields[r.Field] = vs
				delete(nf.Fields, r.Alias)
			}
			for i := range nf.Files {
				if nf.Files[i].Field == r.Alias {
					nf.Files[i].Field = r.Field
				}
			}
			done = append(done, applied{r: r, field: r.Field})
		}
		c.Form = nf
	}
	if len(done) == 0 {
		return
	}
	x.call, x.readings = c, done
	var what []string
	for _, a := range done {
		what = append(what, describeReading(a.r))
	}
	x.may("the request departs from the seed's table by a reading a server may refuse: "+strings.Join(what, "; "),
		[]int{400, 422}, basis{decision: done[0].r.Decision}, "request")
}

// readValue is the value a reading makes of a JSON body's field: the
// alias's value where the field is not given, the value of the other type
// in the declared one. ok is false when the reading does not apply.
func readValue(body map[string]any, r spec.Reading) (any, bool) {
	if r.Alias != "" {
		v, ok := body[r.Alias]
		if _, taken := body[r.Field]; !ok || taken {
			return nil, false
		}
		return v, true
	}
	switch v := body[r.Field].(type) {
	case json.Number:
		if _, err := strconv.ParseInt(v.String(), 10, 64); err == nil && r.Type == "integer" {
			return v.String(), true
		}
	case string:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && r.Type == "string" {
			return json.Number(strconv.FormatInt(n, 10)), true
		}
	}
	return nil, false
}

// formGives reports whether a form gives the field: a text part or a file
// part under its name.
func formGives(f *Form, name string) bool {
	if _, ok := f.Fields[name]; ok {
		return true
	}
	return slices.ContainsFunc(f.Files, func(p File) bool { return p.Field == name })
}

func describeReading(r spec.Reading) string {
	if r.Alias != "" {
		return fmt.Sprintf("%s read as %s (%s)", r.Alias, r.Field, r.Decision)
	}
	return fmt.Sprintf("%s of JSON type %s read as its declared type (%s)", r.Field, r.Type, r.Decision)
}

// readingsKept judges a success to a call read by a type reading: where
// the answer's record shows the field the reading wrote, it is of the
// type the plain request's answer has (a string model_id read as 4 is
// answered 4, not "4"). The record's schema states the type, under the
// seed clause it carries.
func (j *judging) readingsKept(body map[string]any) {
	x := j.x
	if len(x.readings) == 0 || x.op.kind == nil || x.op.kind.record == nil {
		return
	}
	data, _ := body["data"].(map[string]any)
	if data == nil {
		return
	}
	rec := x.op.kind.record
	clause := j.m.seedOf(rec)
	for _, a := range x.readings {
		if a.r.Type == "" {
			continue
		}
		name := a.field
		if st, ok := x.op.stored[a.field]; ok && st.field != "" {
			name = st.field
		}
		p := rec.props[name]
		v, present := data[name]
		if p == nil || !present || clause == "" || (v == nil && p.nullable) || ofType(v, p.typ) {
			continue
		}
		j.find("/data/"+escape(name), "reading:type", fmt.Sprintf("%s, as the plain request's answer (%s read as its declared type)", article(p.typ), a.field),
			show(v), basis{clause: clause})
	}
}

// seedOf is the seed clause the schema a shape was compiled from carries
// (its x-seed mark), "" when none.
func (m *Model) seedOf(s *shape) string {
	name, ok := strings.CutPrefix(s.ptr, "/components/schemas/")
	if !ok || m.strict.Kin.Components == nil {
		return ""
	}
	ref := m.strict.Kin.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		return ""
	}
	seed, _ := ref.Value.Extensions["x-seed"].(string)
	return seed
}

// ofType reports whether a decoded JSON value is of the JSON schema type t
// ("" any).
func ofType(v any, t string) bool {
	switch t {
	case "":
		return true
	case "integer":
		n, ok := v.(json.Number)
		_, err := strconv.ParseInt(string(n), 10, 64)
		return ok && err == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}

func article(t string) string {
	if strings.IndexAny(t, "aeiou") == 0 {
		return "an " + t
	}
	return "a " + t
}
