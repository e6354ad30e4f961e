package drive

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// setValue gives the call's field f the value a value dimension sends:
// absent, a literal, a text or a list of a length, an alternative.
func (g *gen) setValue(op *inputs.Op, c *refmodel.Call, f *inputs.Field, v *inputs.Value) bool {
	if v.Absent {
		return g.unsetPath(c, f)
	}
	val, ok := g.concrete(op, f, v)
	if !ok {
		return false
	}
	switch f.In {
	case "query":
		if c.Query == nil {
			c.Query = query()
		}
		c.Query.Set(f.Name, textOf(val))
	case "form":
		if c.Form == nil {
			c.Form = &refmodel.Form{Fields: map[string][]string{}}
		}
		form := *c.Form
		form.Fields = cloneFields(c.Form.Fields)
		if f == op.Files {
			files, _ := val.([]refmodel.File)
			form.Files = files
		} else {
			form.Fields[f.Name] = []string{textOf(val)}
		}
		c.Form = &form
	default:
		b, _ := c.Body.(map[string]any)
		nb := deepClone(b)
		if nb == nil {
			nb = map[string]any{}
		}
		setPath(nb, f.Name, val)
		c.Body = nb
	}
	return true
}

// concrete is the value v stands for in field f.
func (g *gen) concrete(op *inputs.Op, f *inputs.Field, v *inputs.Value) (any, bool) {
	switch {
	case v.HasLiteral:
		return v.Literal, true
	case v.Alt > 0:
		alts := alternatives(f.Schema)
		if v.Alt > len(alts) {
			return nil, false
		}
		return g.ofSchema(alts[v.Alt-1], f.Name, 0), true
	case f == op.Files:
		n := v.Length
		if n < 0 {
			n = 1
		}
		if n <= 2 {
			files := g.files(op)
			for len(files) < n {
				files = append(files, tinyFiles(f.Name, n)[len(files)])
			}
			return files[:n], true
		}
		return tinyFiles(f.Name, n), true
	case f.Split != nil:
		n := v.Length
		if n < 0 {
			n = 2
		}
		return g.splitText(op, f, n), true
	}
	switch f.Type() {
	case "string":
		return g.textOf(f.Schema, f.Name, v.Length), true
	case "array":
		n := v.Length
		if n < 0 {
			n = 1
		}
		return g.items(f.Schema, f.Name, n, 0), true
	case "object":
		return g.full(f.Schema), true
	}
	return g.ofSchema(f.Schema, f.Name, 0), true
}

// full is an object with every field of its schema given.
func (g *gen) full(s *openapi3.Schema) map[string]any {
	out := map[string]any{}
	for _, p := range sortedProps(s) {
		out[p] = g.ofSchema(s.Properties[p].Value, p, 1)
	}
	return out
}

// unsetPath removes the field (a nested one from its object).
func (g *gen) unsetPath(c *refmodel.Call, f *inputs.Field) bool {
	if f.In != "body" || !strings.ContainsAny(f.Name, ".[") {
		unset(c, f.Loc())
		return true
	}
	b, _ := c.Body.(map[string]any)
	nb := deepClone(b)
	if nb == nil {
		return true
	}
	parent, last := f.Name[:strings.LastIndex(f.Name, ".")], f.Name[strings.LastIndex(f.Name, ".")+1:]
	if obj, ok := walkPath(nb, parent, false).(map[string]any); ok {
		delete(obj, last)
	}
	c.Body = nb
	return true
}

// setPath sets a dotted path of a body ("image_parameters.width",
// "samples[].question": the first item), making the objects and the item
// on the way.
func setPath(body map[string]any, path string, v any) {
	i := strings.LastIndex(path, ".")
	if i < 0 {
		body[path] = v
		return
	}
	if obj, ok := walkPath(body, path[:i], true).(map[string]any); ok {
		obj[path[i+1:]] = v
	}
}

// walkPath finds (and with make, makes) the object a path names.
func walkPath(body map[string]any, path string, make bool) any {
	var cur any = body
	for _, part := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		name, list := strings.CutSuffix(part, "[]")
		next, has := obj[name]
		if !has {
			if !make {
				return nil
			}
			if list {
				next = []any{map[string]any{}}
			} else {
				next = map[string]any{}
			}
			obj[name] = next
		}
		if list {
			items, _ := next.([]any)
			if len(items) == 0 {
				if !make {
					return nil
				}
				items = []any{map[string]any{}}
				obj[name] = items
			}
			next = items[0]
		}
		cur = next
	}
	return cur
}

// deepClone copies a JSON body so a change leaves the original as it was.
func deepClone(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return cloneMap(m)
	}
	var out map[string]any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if dec.Decode(&out) != nil {
		return cloneMap(m)
	}
	return out
}

// textOf renders a value as a query parameter or form field sends it.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
