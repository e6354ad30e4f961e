package drive

import (
	"slices"
	"time"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// The tour of a resource kind with a state machine: each state, reached
// by the clock or by an action and the clock.

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

// started is a group of resources of a kind put on their way to a state
// the clock reaches (completed, failed) before the passes that need no
// wait, so that their runs overlap those passes.
type started struct {
	state string
	ids   []string
	// want are the states the clock moves them to.
	want []string
}

// prestart starts, for each kind whose clock moves after an action (an
// evaluation's run), the groups the tour will meet in the states the
// clock reaches: made from the data models and kept from the passes in
// between (nothing else may change them), they run while those passes
// are sent.
func (d *driver) prestart() {
	d.g.key = refmodel.KeyA
	for _, k := range d.cat.Kinds {
		m := k.Machine
		if m == nil || clockFromStart(m) || k.Create == nil {
			continue
		}
		changing, _ := d.touching(k)
		for _, s := range m.States {
			if slices.Contains(m.Initial, s) {
				continue
			}
			to, ok := d.route(k, s)
			if !ok || to == s {
				continue
			}
			ids := d.makeN(k, 1+len(changing), nil, d.parentFor(s))
			d.startTo(k, ids, s)
			for _, id := range ids {
				d.g.kept[k.Param+"/"+id] = true
			}
			d.started[k.Param] = append(d.started[k.Param], started{state: s, ids: ids, want: m.Clock[to]})
		}
	}
}

// parentFor is the data model a resource bound for state s is made from:
// the starved one for the state its runs end in without files (D-12).
func (d *driver) parentFor(s string) *refmodel.Resource {
	if s == starvedEnds {
		return d.starved
	}
	return d.fed
}

// tourActed tours k, whose clock moves after an action (an evaluation's
// run), in each state of its machine: those the actions reach at once
// (pending, running) now, then those the clock reaches (completed,
// failed) in the groups prestart started, once the clock has moved them.
func (d *driver) tourActed(k *inputs.Kind, changing, shared []*inputs.Op, n int) {
	m := k.Machine
	groups := d.started[k.Param]
	for _, s := range m.States {
		if to, ok := d.route(k, s); ok && to != s {
			continue
		}
		ids := d.makeN(k, n, nil, d.parentFor(s))
		if !slices.Contains(m.Initial, s) && !d.actTo(k, ids, s) {
			continue
		}
		d.touring(k, changing, shared, ids, nil)
	}
	var all, want []string
	for _, gr := range groups {
		all = append(all, gr.ids...)
		for _, w := range gr.want {
			if !slices.Contains(want, w) {
				want = append(want, w)
			}
		}
	}
	if len(all) > 0 {
		d.advance(d.cfg.Eval, k.Param, all, want...)
	}
	for _, gr := range groups {
		d.touring(k, changing, shared, gr.ids, nil)
	}
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
