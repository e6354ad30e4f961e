package drive

import (
	"slices"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// Text from every Unicode plane (gen.planes) written through every text
// field of an operation at once, and read back through every operation
// that shows the resource it wrote: its read by id, its list, the list of
// the collection the write added to. A server that keeps text in three-byte
// UTF-8 (MySQL's utf8mb3) cuts it at its first character beyond the BMP.

// planesWrite sends op with every text field it may carry any text in
// (inputs.PlanesFields) set to text from every plane — letters only where
// the model predicts the whole text refused (a name, D-19) — and reads the
// resource it wrote back.
func (d *driver) planesWrite(op *inputs.Op) {
	g := d.g
	k, id := d.planesTarget(op)
	var c refmodel.Call
	var ok bool
	switch {
	case k != nil && op.Role != inputs.RoleCreate:
		if id == "" {
			return
		}
		c, ok = d.aimed(op, k, id)
	default:
		c, ok = g.minimal(op)
	}
	fields := inputs.PlanesFields(op)
	if !ok || len(fields) == 0 {
		return
	}
	with := func(letters bool) refmodel.Call {
		out := c
		for _, f := range fields {
			setLoc(&out, f.Loc(), g.planes(letters))
		}
		return out
	}
	pc := with(false)
	if !d.m.Expect(pc).Success {
		pc = with(true)
	}
	for _, f := range fields {
		d.mark(op.ID + " " + f.Loc() + " = text from every Unicode plane")
	}
	if op.Stream() && slices.Contains(op.Answers, jsonMedia) {
		pc.Accept = jsonMedia // the stream's own dimension quotes such text
	}
	a := d.do(pc)
	if op.Role == inputs.RoleCreate {
		id = createdID(a)
	}
	if a.Status/100 == 2 && k != nil && id != "" {
		d.readBack(op, k, id)
	}
}

// planesTarget is the resource op writes its text into: a new one for a
// create (its id known once made), one of the run's own for an update or
// an action, the one an effect writes into (a conversation an inference
// continues); nil for an operation that keeps nothing.
func (d *driver) planesTarget(op *inputs.Op) (*inputs.Kind, string) {
	switch op.Role {
	case inputs.RoleCreate:
		return op.Kind, ""
	case inputs.RoleUpdate, inputs.RoleAction:
		return op.Kind, d.make(op.Kind, nil, d.fed)
	}
	for _, e := range op.Effects {
		if k := d.cat.Kind(e.Into); k != nil && k.Create != nil {
			return k, d.make(k, nil, d.fed)
		}
	}
	return nil, ""
}

// readBack reads the resource id of k that writer wrote: by id, in its
// list, and in the list of each collection writer added to.
func (d *driver) readBack(writer *inputs.Op, k *inputs.Kind, id string) {
	for _, op := range d.cat.Ops {
		if op.Kind != k {
			continue
		}
		switch op.Role {
		case inputs.RoleGet, inputs.RoleList:
		case inputs.RoleChild:
			if !addsTo(writer, k, op.Coll) {
				continue
			}
		default:
			continue
		}
		if c, ok := d.aimed(op, k, id); ok {
			d.mark(op.ID + " text from every Unicode plane read back")
			d.lean(op, c)
		}
	}
}

// planesRead reaches op's read-back dimension when no write of the pass
// reached it yet: the write that shows in op's answer (its kind's create,
// or what adds to the collection it lists) is sent first.
func (d *driver) planesRead(op *inputs.Op) {
	k := op.Kind
	writer := k.Create
	if op.Role == inputs.RoleChild {
		writer = nil
		for _, w := range d.cat.Ops {
			if addsTo(w, k, op.Coll) && len(inputs.PlanesFields(w)) > 0 {
				writer = w
				break
			}
		}
	}
	if writer != nil {
		d.planesWrite(writer)
	}
}
