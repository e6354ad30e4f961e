package drive

import (
	"slices"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// The tour: every operation that reads or writes a resource, against
// resources of its kind in each of their states (inputs.States) — each
// state of its machine (models pending, training, ready and failed;
// evaluations pending, running, completed and failed), each collection
// without and with items (a conversation without and with messages, a
// dataset without and with files), with a record of each kind that names
// it (a model with conversations, with evaluations; a dataset with
// models), and after each update and each effect written into it (after
// a rename, after an inference continued it, after an upload). An operation that changes the resource gets one of its own
// in each state; the others share one.

// tour runs the whole tour with the first key (after dataModels).
func (d *driver) tour() {
	d.g.key = refmodel.KeyA
	for _, k := range d.cat.Kinds {
		if k.Create == nil {
			continue
		}
		if k.Machine != nil {
			d.tourMachine(k)
		}
		d.tourItems(k)
	}
}

// touching splits the operations that touch k into those that change a
// resource of k and those that do not.
func (d *driver) touching(k *inputs.Kind) (changing, shared []*inputs.Op) {
	for _, op := range d.cat.Ops {
		if !slices.Contains(d.cat.Touched(op), k) {
			continue
		}
		if inputs.Changes(op, k) {
			changing = append(changing, op)
		} else {
			shared = append(shared, op)
		}
	}
	return changing, shared
}

// tourItems tours k without and with items in each collection, and after
// each update and each effect written into it.
func (d *driver) tourItems(k *inputs.Kind) {
	changing, shared := d.touching(k)
	n := 1 + len(changing)
	for _, s := range d.cat.States(k) {
		if s.Field != "" {
			continue
		}
		var ids []string
		switch {
		case s.Coll != "":
			ids = d.makeN(k, n, &s, d.fed)
		case s.By != "":
			ids = d.makeN(k, n, nil, d.fed)
			d.relate(k, d.cat.Kind(s.By), ids)
		default:
			ids = d.makeN(k, n, nil, d.fed)
			for _, id := range ids {
				d.apply(d.cat.Op(s.After), k, id)
			}
		}
		d.touring(k, changing, shared, ids, &s)
	}
}

// relate gives each resource ids of k one record of kind by that names it
// (a conversation of each model, a model built from each dataset).
func (d *driver) relate(k, by *inputs.Kind, ids []string) {
	if by == nil || by.Create == nil {
		return
	}
	for _, id := range ids {
		if r, ok := d.resource(k, id); ok {
			d.make(by, nil, &r)
		}
	}
}

// makeN makes n resources of k: with s (a collection state) without or with
// items; parent, when set, is the resource their reference fields name
// (the model an evaluation evaluates).
func (d *driver) makeN(k *inputs.Kind, n int, s *inputs.State, parent *refmodel.Resource) []string {
	var ids []string
	for range n {
		id := d.make(k, s, parent)
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// make creates one resource of k; "" when the create failed.
func (d *driver) make(k *inputs.Kind, s *inputs.State, parent *refmodel.Resource) string {
	g := d.g
	op := k.Create
	c, ok := g.success(op)
	if !ok {
		return ""
	}
	for _, f := range op.IDs {
		r, ok := d.healthy(f.Kind)
		if parent != nil && parent.Kind == f.Kind.Param {
			r, ok = *parent, true
		}
		if ok {
			g.setID(op, &c, f, r.ID)
			g.repair(op, &c)
		}
	}
	fills := s != nil && s.Coll != "" && filledBy(op, s.Coll)
	if fills && op.Files != nil {
		if s.Items {
			c.Form.Files = g.files(op)
		} else {
			unset(&c, op.Files.Loc())
			for _, gr := range op.Groups {
				for _, m := range gr.Members {
					if m != op.Files.Loc() && !given(&c, m) {
						g.fillLoc(op, &c, m)
					}
				}
			}
		}
	}
	id := createdID(d.do(c))
	if id != "" && s != nil && s.Coll != "" && s.Items && !fills {
		for _, adder := range d.cat.Ops {
			if addsTo(adder, k, s.Coll) {
				d.apply(adder, k, id)
				break
			}
		}
	}
	return id
}

// filledBy reports whether a create fills the collection itself (a
// dataset's files, its x-effect files entry without `into`).
func filledBy(op *inputs.Op, coll string) bool {
	for _, e := range op.Effects {
		if e.Into == "" && slices.Contains(e.To, coll) {
			return true
		}
	}
	return false
}

// addsTo reports whether op's effect adds items to k's collection.
func addsTo(op *inputs.Op, k *inputs.Kind, coll string) bool {
	for _, e := range op.Effects {
		if e.Into == k.Param && slices.Contains(e.To, coll) {
			return true
		}
	}
	return false
}

// apply sends op as it should succeed, aimed at the resource id of k.
func (d *driver) apply(op *inputs.Op, k *inputs.Kind, id string) bool {
	if op == nil || id == "" {
		return false
	}
	c, ok := d.aimed(op, k, id)
	return ok && d.do(c).Status/100 == 2
}

// aimed is a minimal call of op aimed at the resource id of k: its id
// field of k set, the fields a same-parent rule ties to it set to its
// parent; a list of k scoped to its parent.
func (d *driver) aimed(op *inputs.Op, k *inputs.Kind, id string) (refmodel.Call, bool) {
	g := d.g
	c, ok := g.minimal(op)
	if !ok {
		return c, false
	}
	r, _ := d.resource(k, id)
	if op.Role == inputs.RoleList && op.Kind == k {
		if k.Scope != "" && r.Parent != "" {
			c.Query.Set(k.Scope, r.Parent)
		}
		return c, true
	}
	for _, f := range op.IDs {
		if f.Kind != k {
			continue
		}
		g.setID(op, &c, f, id)
		g.unsetParent(op, &c, f)
		for _, rule := range op.Rules {
			if rule.Rule == "same-parent" && rule.Field == f.Name && r.Parent != "" {
				if pf := op.Field("body:" + str(rule.Params["field"])); pf != nil {
					g.setID(op, &c, pf, r.Parent)
				}
			}
		}
		return c, true
	}
	return c, false
}

// resource is what the model knows of the resource id of k.
func (d *driver) resource(k *inputs.Kind, id string) (refmodel.Resource, bool) {
	for _, r := range d.m.Resources(d.g.key) {
		if r.Kind == k.Param && r.ID == id {
			return r, true
		}
	}
	return refmodel.Resource{}, false
}

// healthy picks a live resource of k no operation's x-effect refuses for
// its state, one its effects are allowed in when there is one (a ready
// model).
func (d *driver) healthy(k *inputs.Kind) (refmodel.Resource, bool) {
	var refused, allowed []string
	field := ""
	for _, op := range d.cat.Ops {
		for _, e := range op.Effects {
			if e.Rule == "state" && e.Target == k.Param {
				refused, allowed, field = append(refused, e.RefusedIn...), append(allowed, e.AllowedIn...), e.State
			}
		}
	}
	if r, ok := d.g.pick(k.Param, d.g.key, func(r refmodel.Resource) bool { return !r.Gone && len(allowed) > 0 && within(r, field, allowed) }); ok {
		return r, true
	}
	return d.g.pick(k.Param, d.g.key, func(r refmodel.Resource) bool { return !r.Gone && !meets(r, field, refused) })
}

// touring sends each operation that does not change k to the first of the
// resources ids, and each that does to one of its own, after a read that
// shows the state each is in; s is the state they were made in (nil: the
// machine's state, as the model or the read knows it).
func (d *driver) touring(k *inputs.Kind, changing, shared []*inputs.Op, ids []string, s *inputs.State) {
	if len(ids) == 0 {
		return
	}
	seen := map[string]string{}
	if s == nil && k.Machine != nil {
		for _, id := range ids {
			seen[id] = d.read(k.Param, id)
		}
	}
	for _, op := range shared {
		d.tourOne(op, k, ids[0], s, seen[ids[0]])
	}
	d.askHolders(k, ids[0], s, seen[ids[0]]) // wire.go: the name check about its name
	for i, op := range changing {
		if 1+i < len(ids) {
			d.tourOne(op, k, ids[1+i], s, seen[ids[1+i]])
		}
	}
}

// tourOne sends op aimed at the resource id of k and counts the state it
// met.
func (d *driver) tourOne(op *inputs.Op, k *inputs.Kind, id string, s *inputs.State, read string) {
	c, ok := d.aimed(op, k, id)
	if !ok {
		return
	}
	state := inputs.State{}
	switch {
	case s != nil:
		state = *s
	case k.Machine != nil:
		v := read
		if r, ok := d.resource(k, id); ok && len(r.States[k.Machine.Field]) == 1 {
			v = r.States[k.Machine.Field][0]
		}
		if v == "" {
			d.do(c)
			return
		}
		state = inputs.State{Field: k.Machine.Field, Value: v}
	}
	d.met[k.Param+" "+state.String()] = true
	d.mark(op.ID + " " + inputs.StateName(k, state))
	if d.run.Toured[op.ID] == nil {
		d.run.Toured[op.ID] = map[string]int{}
	}
	d.run.Toured[op.ID][state.String()]++
	d.do(c)
}

// toured reports whether the tour met a resource of k in s.
func (d *driver) toured(k *inputs.Kind, s inputs.State) bool { return d.met[k.Param+" "+s.String()] }

// quoting adds a file whose text an answer will quote to the resource id
// of k, by the operation that uploads files into it.
func (d *driver) quoting(k *inputs.Kind, id string) {
	for _, op := range d.cat.Ops {
		if op.Files == nil || op.Role == inputs.RoleCreate {
			continue
		}
		for _, coll := range k.Colls {
			if !addsTo(op, k, coll) {
				continue
			}
			c, ok := d.aimed(op, k, id)
			if ok && d.g.encode(op, &c, &inputs.Encoding{Trick: inputs.TrickQuoting}) {
				d.do(c)
			}
			return
		}
	}
}
