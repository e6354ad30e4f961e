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

// effects runs them with the first key. Each is prepared first — what it
// needs made, the models among them training — and the trainings are
// awaited together, then each write is sent and read: the runs of a real
// server's clock overlap rather than follow one another.
func (d *driver) effects() {
	d.g.key = refmodel.KeyA
	var plans []effect
	for _, op := range d.cat.Ops {
		for _, e := range op.Effects {
			if k := d.cat.Kind(e.Into); k != nil && op.Role != inputs.RoleCreate {
				plans = append(plans, d.into(op, k))
				break
			}
		}
	}
	for _, k := range d.cat.Kinds {
		if k.Delete == nil || k.Create == nil || len(d.referrers(k)) == 0 {
			continue
		}
		plans = append(plans, d.deleteUnder(k, false))
		if soft := softParam(k.Delete); soft != "" {
			plans = append(plans, d.deleteUnder(k, true))
		}
	}
	training := map[*inputs.Kind][]string{}
	for _, p := range plans {
		if len(p.training) > 0 {
			training[p.trained] = append(training[p.trained], p.training...)
		}
	}
	for _, k := range d.cat.Kinds {
		if ids := training[k]; len(ids) > 0 {
			d.advance(d.cfg.Train, k.Param, ids, terminal(k.Machine)...)
		}
	}
	for _, p := range plans {
		if p.then != nil {
			p.then()
		}
	}
}

// effect is one write prepared: the resources of kind trained (the one
// whose machine's clock runs from its create) it made and waits for, and
// what it does once they are trained (nil: nothing, it could not be
// prepared).
type effect struct {
	trained  *inputs.Kind
	training []string
	then     func()
}

// into prepares op written into a fresh resource of k (with a resource of
// each kind that refers to it) twice, reading k after each.
func (d *driver) into(op *inputs.Op, k *inputs.Kind) effect {
	var e effect
	id := d.make(k, nil, d.fed)
	if id == "" {
		return e
	}
	r, _ := d.resource(k, id)
	for _, o := range d.referrers(k) {
		if o.Create != nil && o.Machine != nil && clockFromStart(o.Machine) {
			if kid := d.make(o, nil, &r); kid != "" {
				e.trained, e.training = o, append(e.training, kid)
			}
		}
	}
	e.then = func() {
		for range 2 {
			d.apply(op, k, id)
			d.readAll(k, id)
		}
	}
	return e
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

// deleteUnder prepares a resource of k (trained, where its machine's
// clock runs) with one of each kind that refers to it, deleted (for good
// when permanent and the delete can be soft), then what referred to it
// read and acted on. A resource that must be trained before others can
// refer to it (a model under an evaluation) gets them once trained.
func (d *driver) deleteUnder(k *inputs.Kind, permanent bool) effect {
	var e effect
	trained := k.Machine != nil && clockFromStart(k.Machine)
	id := d.make(k, nil, nil)
	if id == "" {
		return e
	}
	if trained {
		e.trained, e.training = k, []string{id}
	}
	type kid struct {
		kind *inputs.Kind
		id   string
	}
	var kids []kid
	makeKids := func() {
		r, _ := d.resource(k, id)
		for _, o := range d.referrers(k) {
			if o.Create == nil {
				continue
			}
			x := d.make(o, nil, &r)
			if x == "" {
				continue
			}
			kids = append(kids, kid{o, x})
			if o.Machine != nil && clockFromStart(o.Machine) {
				if trained { // made after the wait: awaited on its own
					d.advance(d.cfg.Train, o.Param, []string{x}, terminal(o.Machine)...)
				} else {
					e.trained, e.training = o, append(e.training, x)
				}
			}
		}
	}
	// The referrers of a resource ready at once (the models of a dataset)
	// are made now and train meanwhile; those of a trained one (the
	// evaluations of a model), once it is.
	if !trained {
		makeKids()
	}
	e.then = func() {
		if trained {
			makeKids()
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
		for _, x := range kids {
			d.readAll(x.kind, x.id)
			for _, op := range x.kind.Actions {
				if c, ok := d.aimed(op, x.kind, x.id); ok {
					d.do(c)
				}
			}
		}
		if k.Machine != nil {
			d.advance(d.cfg.Eval, "", nil)
		}
	}
	return e
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
