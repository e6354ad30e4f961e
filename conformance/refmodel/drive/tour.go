package drive

import (
	"slices"
	"time"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// The tour: every operation that reads or writes a resource, against
// resources of its kind in each of their states (inputs.States) — each
// state of its machine (models pending, training, ready and failed;
// evaluations pending, running, completed and failed), each collection
// without and with items (a conversation without and with messages, a
// dataset without and with files), and after each update and each effect
// written into it (after a rename, after an inference continued it, after
// an upload). An operation that changes the resource gets one of its own
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

// tourMachine tours k in each state of its machine. A machine whose clock
// moves from its first states (a model's training) is toured in stages of
// the clock; one whose clock moves after an action (an evaluation's run)
// is put in each state by the actions and the clock.
func (d *driver) tourMachine(k *inputs.Kind) {
	m := k.Machine
	changing, shared := d.touching(k)
	n := 1 + len(changing)
	if clockFromStart(m) {
		train := d.cfg.Train
		later := clockTargets(m)
		// The last stage's resources are made first: their clock runs
		// while the earlier stages are toured (a fake clock moved for
		// those moves them too, toward the state they are awaited in).
		last := d.makeN(k, n, nil, nil)
		for i, stage := range []struct {
			by   time.Duration
			want []string
		}{{0, nil}, {train / 5, later}, {train * 3 / 5, later}, {train, terminal(m)}} {
			ids := last
			if i < 3 {
				ids = d.makeN(k, n, nil, nil)
			}
			d.advance(stage.by, k.Param, ids, stage.want...)
			d.touring(k, changing, shared, ids, nil)
		}
	} else {
		d.tourActed(k, changing, shared, n)
	}
	// A state the run cannot provoke, met in what the accounts held (the
	// fixtures' failed model): toured by what does not change it.
	for _, s := range m.States {
		if d.toured(k, inputs.State{Field: m.Field, Value: s}) {
			continue
		}
		if r, ok := d.g.pick(k.Param, refmodel.KeyA, func(r refmodel.Resource) bool { return !r.Gone && within(r, m.Field, []string{s}) }); ok {
			d.touring(k, nil, shared, []string{r.ID}, nil)
		}
	}
}

// tourActed tours k, whose clock moves after an action (an evaluation's
// run), in each state of its machine. The states the clock must reach
// (completed, failed) are started first and awaited together once the
// others (pending, running) are toured: their runs overlap that tour and
// each other, rather than one wait after another.
func (d *driver) tourActed(k *inputs.Kind, changing, shared []*inputs.Op, n int) {
	m := k.Machine
	parent := func(s string) *refmodel.Resource {
		if s == starvedEnds {
			return d.starved
		}
		return d.fed
	}
	type group struct {
		state string
		ids   []string
	}
	var waiting []group
	var all, want []string
	for _, s := range m.States {
		if slices.Contains(m.Initial, s) {
			continue
		}
		if to, ok := d.route(k, s); ok && to != s {
			ids := d.makeN(k, n, nil, parent(s))
			d.startTo(k, ids, s)
			waiting = append(waiting, group{s, ids})
			all = append(all, ids...)
			for _, w := range m.Clock[to] {
				if !slices.Contains(want, w) {
					want = append(want, w)
				}
			}
		}
	}
	for _, s := range m.States {
		if to, ok := d.route(k, s); ok && to != s {
			continue
		}
		ids := d.makeN(k, n, nil, parent(s))
		if !slices.Contains(m.Initial, s) && !d.actTo(k, ids, s) {
			continue
		}
		d.touring(k, changing, shared, ids, nil)
	}
	if len(all) > 0 {
		d.advance(d.cfg.Eval, k.Param, all, want...)
	}
	for _, w := range waiting {
		d.touring(k, changing, shared, w.ids, nil)
	}
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
		default:
			ids = d.makeN(k, n, nil, d.fed)
			for _, id := range ids {
				d.apply(d.cat.Op(s.After), k, id)
			}
		}
		d.touring(k, changing, shared, ids, &s)
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

// actTo moves the resources ids of k to the state s: by the action whose
// x-effect moves it there, then by the clock for a state the clock reaches
// from there (a run that ends).
func (d *driver) actTo(k *inputs.Kind, ids []string, s string) bool {
	to, ok := d.startTo(k, ids, s)
	if ok && to != s {
		d.advance(d.cfg.Eval, k.Param, ids, k.Machine.Clock[to]...)
	}
	return ok
}

// route is the state the action that leads a resource of k to s puts it
// in: s itself, or one the clock moves on to s.
func (d *driver) route(k *inputs.Kind, s string) (to string, ok bool) {
	op, to := d.actionTo(k, s)
	return to, op != nil
}

// actionTo is the action that leads a resource of k to s, and the state
// it puts it in (nil: none does).
func (d *driver) actionTo(k *inputs.Kind, s string) (*inputs.Op, string) {
	for _, op := range k.Actions {
		for _, e := range op.Effects {
			if e.Rule != "state" || e.Target != k.Param || len(e.To) != 1 {
				continue
			}
			if to := e.To[0]; to == s || slices.Contains(k.Machine.Clock[to], s) {
				return op, to
			}
		}
	}
	return nil, ""
}

// startTo applies the action that leads ids to s, without awaiting the
// clock; it returns the state the action put them in.
func (d *driver) startTo(k *inputs.Kind, ids []string, s string) (to string, ok bool) {
	op, to := d.actionTo(k, s)
	if op == nil {
		return "", false
	}
	for _, id := range ids {
		d.apply(op, k, id)
	}
	return to, true
}

// clockFromStart reports whether the machine's clock moves from its
// initial states (a model trains on its own from its create).
func clockFromStart(m *inputs.Machine) bool {
	for _, s := range m.Initial {
		if len(m.Clock[s]) > 0 {
			return true
		}
	}
	return false
}

// clockTargets are the states the clock moves a resource to.
func clockTargets(m *inputs.Machine) []string {
	var out []string
	for _, s := range m.States {
		for _, to := range m.Clock {
			if slices.Contains(to, s) && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// terminal are the states the clock moves out of no more.
func terminal(m *inputs.Machine) []string {
	return slices.DeleteFunc(slices.Clone(m.States), func(s string) bool { return len(m.Clock[s]) > 0 })
}

// dataModels makes the two models later passes work from, training at
// once: fed (of a dataset with files) and starved (of one without).
func (d *driver) dataModels() {
	d.g.key = refmodel.KeyA
	fed, starved := d.startDataModel(true), d.startDataModel(false)
	var ids []string
	var k *inputs.Kind
	for _, p := range []*pendingModel{fed, starved} {
		if p != nil {
			ids, k = append(ids, p.id), p.kind
		}
	}
	if k != nil {
		d.advance(d.cfg.Train, k.Param, ids, terminal(k.Machine)...)
	}
	d.fed, d.starved = d.finishDataModel(fed), d.finishDataModel(starved)
}

// pendingModel is a model dataModels started, and its dataset.
type pendingModel struct {
	kind, src *inputs.Kind
	id, ds    string
}

// startDataModel makes a model (the resource kind whose machine's clock
// runs from its create) of a dataset with files or without (a resource of
// the kind its create names, made without items); its training is awaited
// by the caller: the evaluations of the first complete, those of the
// second fail (D-12: nothing to answer from). The files include text an
// answer will quote (quotes, backslashes, tabs, line breaks).
func (d *driver) startDataModel(items bool) *pendingModel {
	for _, k := range d.cat.Kinds {
		if k.Machine == nil || !clockFromStart(k.Machine) || k.Create == nil {
			continue
		}
		for _, f := range k.Create.IDs {
			src := f.Kind
			if src.Create == nil || len(src.Colls) == 0 {
				continue
			}
			ds := d.make(src, &inputs.State{Coll: src.Colls[0], Items: items}, nil)
			if ds == "" {
				return nil
			}
			if items {
				d.quoting(src, ds)
			}
			r, _ := d.resource(src, ds)
			if id := d.make(k, nil, &r); id != "" {
				return &pendingModel{kind: k, src: src, id: id, ds: ds}
			}
			return nil
		}
	}
	return nil
}

// finishDataModel is the model p started, once trained, kept: later
// passes read from it (evaluations, answers quoting its files), so none
// may delete or change it, or its dataset.
func (d *driver) finishDataModel(p *pendingModel) *refmodel.Resource {
	if p == nil {
		return nil
	}
	m, ok := d.resource(p.kind, p.id)
	if !ok {
		return nil
	}
	d.g.kept[p.src.Param+"/"+p.ds], d.g.kept[p.kind.Param+"/"+p.id] = true, true
	return &m
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
