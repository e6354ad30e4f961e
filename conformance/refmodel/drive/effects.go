package drive

import (
	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// The writes whose effects reach other resources, each followed by reads
// of what it reached: each operation that writes into another resource
// (an inference into its conversation, an upload into its dataset) twice
// into one; each delete of a resource others refer to (a model with its
// conversations and evaluations, a dataset under a trained model), softly
// and for good where the delete can be both.

// effects runs them with the first key.
func (d *driver) effects() {
	d.g.key = refmodel.KeyA
	for _, op := range d.cat.Ops {
		for _, e := range op.Effects {
			if k := d.cat.Kind(e.Into); k != nil && op.Role != inputs.RoleCreate {
				d.into(op, k)
				break
			}
		}
	}
	for _, k := range d.cat.Kinds {
		if k.Delete == nil || k.Create == nil || len(d.referrers(k)) == 0 {
			continue
		}
		d.deleteUnder(k, false)
		if soft := softParam(k.Delete); soft != "" {
			d.deleteUnder(k, true)
		}
	}
}

// into writes op into a fresh resource of k (with a resource of each kind
// that refers to it) twice, reading k after each.
func (d *driver) into(op *inputs.Op, k *inputs.Kind) {
	id := d.make(k, nil, d.fed)
	if id == "" {
		return
	}
	r, _ := d.resource(k, id)
	for _, o := range d.referrers(k) {
		if o.Create != nil && o.Machine != nil && clockFromStart(o.Machine) {
			if kid := d.make(o, nil, &r); kid != "" {
				d.advance(d.cfg.Train, o.Param, []string{kid}, terminal(o.Machine)...)
			}
		}
	}
	for range 2 {
		d.apply(op, k, id)
		d.readAll(k, id)
	}
}

// readAll reads a resource of k every way there is: by id, in its list
// (scoped to its parent), its collections' lists; and the resources that
// refer to it, by id.
func (d *driver) readAll(k *inputs.Kind, id string) {
	r, _ := d.resource(k, id)
	if k.Get != nil {
		d.do(refmodel.Call{Op: k.Get.ID, Key: d.g.key, Path: map[string]string{k.Param: id}})
	}
	if k.List != nil {
		c := refmodel.Call{Op: k.List.ID, Key: d.g.key}
		if k.Scope != "" {
			c.Query = query(k.Scope, r.Parent)
		}
		d.walk(c)
	}
	for _, op := range k.Children {
		d.walk(refmodel.Call{Op: op.ID, Key: d.g.key, Path: map[string]string{k.Param: id}})
	}
	for _, o := range d.referrers(k) {
		for _, x := range d.m.Resources(d.g.key) {
			if x.Kind == o.Param && o.Get != nil && refersTo(x, k.Param, id) {
				d.do(refmodel.Call{Op: o.Get.ID, Key: d.g.key, Path: map[string]string{o.Param: x.ID}})
			}
		}
	}
}

// referrers are the kinds whose records name a resource of k.
func (d *driver) referrers(k *inputs.Kind) []*inputs.Kind {
	var out []*inputs.Kind
	for _, o := range d.cat.Kinds {
		for _, ref := range o.Refs {
			if ref.Kind == k {
				out = append(out, o)
			}
		}
	}
	return out
}

// refersTo reports whether a resource names id in its field (or is scoped
// under it).
func refersTo(r refmodel.Resource, field, id string) bool {
	return r.Parent == id && r.Parent != "" || idText(r.Fields[field]) == id
}

// deleteUnder makes a resource of k (trained, where its machine's clock
// runs), one of each kind that refers to it, deletes it (for good when
// permanent and the delete can be soft), then reads and acts on what
// referred to it.
func (d *driver) deleteUnder(k *inputs.Kind, permanent bool) {
	var id string
	if k.Machine != nil && clockFromStart(k.Machine) {
		if m := d.dataModelOf(k); m != "" {
			id = m
		}
	} else {
		id = d.make(k, nil, nil)
	}
	if id == "" {
		return
	}
	r, _ := d.resource(k, id)
	var kids []struct {
		kind *inputs.Kind
		id   string
	}
	for _, o := range d.referrers(k) {
		if o.Create == nil {
			continue
		}
		kid := d.make(o, nil, &r)
		if kid != "" {
			kids = append(kids, struct {
				kind *inputs.Kind
				id   string
			}{o, kid})
			if o.Machine != nil && clockFromStart(o.Machine) {
				d.advance(d.cfg.Train, o.Param, []string{kid}, terminal(o.Machine)...)
			}
		}
	}
	del, _ := d.g.minimal(k.Delete)
	del.Path = map[string]string{k.Param: id}
	if soft := softParam(k.Delete); soft != "" {
		del.Query = query(soft, "false")
		if permanent {
			del.Query = query(soft, "true")
		}
	}
	d.do(del)
	for _, kid := range kids {
		d.readAll(kid.kind, kid.id)
		for _, op := range kid.kind.Actions {
			if c, ok := d.aimed(op, kid.kind, kid.id); ok {
				d.do(c)
			}
		}
	}
	if k.Machine != nil {
		d.advance(d.cfg.Eval, "", nil)
	}
}

// dataModelOf makes a resource of k of the clock-from-start kind on a
// fresh resource with items and waits for its clock to end.
func (d *driver) dataModelOf(k *inputs.Kind) string {
	id := d.make(k, nil, nil)
	d.advance(d.cfg.Train, k.Param, []string{id}, terminal(k.Machine)...)
	return id
}

// softParam is the query parameter that makes a soft delete permanent
// (an x-effect soft-delete entry's unless: "query:permanent"), "" none.
func softParam(op *inputs.Op) string {
	for _, e := range op.Effects {
		if e.Rule == "soft-delete" {
			if in, name, ok := cutLoc(e.Unless); ok && in == "query" {
				return name
			}
		}
	}
	return ""
}

func cutLoc(loc string) (in, name string, ok bool) {
	for i := 0; i < len(loc); i++ {
		if loc[i] == ':' {
			return loc[:i], loc[i+1:], true
		}
	}
	return "", "", false
}
