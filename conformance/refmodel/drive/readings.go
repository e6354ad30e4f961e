package drive

import (
	"encoding/json"
	"slices"
	"strconv"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
	"contractkit/spec"
)

// The readings a server may give (x-lenient, D-21), each sent alone in a
// call the server took otherwise: the model predicts the plain request's
// answer, or a refusal of the reading.

// reading sends the reading dimension dim of op.
func (d *driver) reading(op *inputs.Op, dim inputs.Dimension) {
	f := op.Field(dim.Field)
	if f == nil || dim.Reading == nil {
		return
	}
	c, ok := d.g.minimal(op)
	if !ok {
		return
	}
	if !given(&c, f.Loc()) {
		d.g.fillLoc(op, &c, f.Loc())
	}
	if read(&c, f, *dim.Reading) {
		d.mark(dim.Key())
		d.lean(op, c)
	}
}

// read writes the call's field f as the reading r departs from it: under
// its other name, or as a value of its other JSON type. False when the
// call does not give f in a form the reading takes.
func read(c *refmodel.Call, f *inputs.Field, r spec.Reading) bool {
	if f.In == "form" {
		if c.Form == nil || r.Alias == "" {
			return false
		}
		nf := &refmodel.Form{Fields: cloneFields(c.Form.Fields), Files: slices.Clone(c.Form.Files)}
		moved := false
		if vs, ok := nf.Fields[f.Name]; ok {
			nf.Fields[r.Alias] = vs
			delete(nf.Fields, f.Name)
			moved = true
		}
		for i := range nf.Files {
			if nf.Files[i].Field == f.Name {
				nf.Files[i].Field, moved = r.Alias, true
			}
		}
		c.Form = nf
		return moved
	}
	b, _ := c.Body.(map[string]any)
	v, ok := b[f.Name]
	if !ok {
		return false
	}
	nb := cloneMap(b)
	switch {
	case r.Alias != "":
		delete(nb, f.Name)
		nb[r.Alias] = v
	case r.Type == "integer": // a text field sent as a JSON number
		s := idText(v)
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return false
		}
		nb[f.Name] = json.Number(s)
	case r.Type == "string": // a number field sent as its text
		s := idText(v)
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return false
		}
		nb[f.Name] = s
	default:
		return false
	}
	c.Body = nb
	return true
}
