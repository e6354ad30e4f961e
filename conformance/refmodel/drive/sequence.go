package drive

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// drive runs the whole sequence: the baseline (every list walked: what
// the accounts hold is adopted), every operation once as it should
// succeed, every input dimension of every operation, the second key,
// bursts, the tour of states, the effects, random steps, and the lists
// again.
func (d *driver) drive() {
	g := d.g
	for _, k := range d.keys() {
		d.walkAll(k)
	}
	for _, k := range d.keys() {
		for _, r := range d.m.Resources(k) {
			g.protected[r.Kind+"/"+r.ID] = true
		}
	}
	d.why()
	// Every operation once as it should succeed: the values a server takes
	// are known before states and refusals are probed.
	g.key = refmodel.KeyA
	for _, op := range d.cat.Ops {
		if op.Role == inputs.RoleDelete {
			continue
		}
		if c, ok := g.success(op); ok {
			if a := d.do(c); a.Status/100 == 2 {
				g.first[op.ID] = c
			}
		}
	}
	// The input pass, the second key and the bursts come before the tour
	// and the effects: those wait for states (a model's training, an
	// evaluation's run), and a run whose time is up must have sent every
	// dimension that needs no wait first. The two models those passes
	// work from train at once, and the runs the tour awaits start before
	// the input pass, which they overlap.
	d.dataModels()
	d.prestart()
	d.dimensions()
	d.secondKey()
	d.bursts()
	d.tour()
	d.effects()
	// What the input pass could not send yet (a near-miss id that named a
	// live resource while every id was short) is sent now.
	d.dimensions()
	d.random(d.cfg.Steps)
	for _, k := range d.keys() {
		d.walkAll(k)
	}
	if !d.cfg.Keep {
		d.cleanup()
	}
}

// secondKey sends every operation with the second key as it should
// succeed, and aims each id field at the first account's resources: what
// tells the accounts apart.
func (d *driver) secondKey() {
	if d.cfg.OneAccount {
		return
	}
	g := d.g
	g.key = refmodel.KeyB
	defer func() { g.key = refmodel.KeyA }()
	for _, op := range d.cat.Ops {
		if c, ok := g.success(op); ok && op.Role != inputs.RoleDelete {
			d.do(c)
		}
		for _, f := range op.IDs {
			if c, ok := g.success(op); ok && g.intent(op, &c, f, inputs.IntentForeign) {
				d.do(c)
			}
		}
	}
}

// cleanup deletes what the run made and is still there, what refers to
// others first: a resource in a state its delete refuses (a running
// evaluation) is awaited. It runs on a context of its own, bounded by
// Config.Cleanup: the run's may be over (its time was up), what it made
// must still go.
func (d *driver) cleanup() {
	stopped, runCtx := d.run.Stopped, d.ctx
	d.run.Stopped = "" // a replay's bound, or the run's time, does not keep its resources
	limit, until := d.cfg.MaxCalls, d.cfg.Until
	d.cfg.MaxCalls, d.cfg.Until = 0, time.Time{}
	within := d.cfg.Cleanup
	if within <= 0 {
		within = max(time.Minute, 2*d.cfg.MaxWait)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(runCtx), within)
	d.ctx = ctx
	defer func() {
		cancel()
		d.cfg.MaxCalls, d.cfg.Until, d.ctx = limit, until, runCtx
		if stopped != "" {
			d.run.Stopped = stopped // why the run ended early, not its clean-up
		}
	}()
	for _, k := range d.keys() {
		for _, kind := range d.deleteOrder() {
			if kind.Delete == nil {
				continue
			}
			d.settle(k, kind)
			for _, r := range d.m.Resources(k) {
				if r.Kind == kind.Param && !r.Gone && !d.g.protected[r.Kind+"/"+r.ID] {
					d.do(refmodel.Call{Op: kind.Delete.ID, Key: k, Path: map[string]string{kind.Param: r.ID}})
				}
			}
		}
	}
}

// settle waits until none of the run's resources of kind is in a state
// its delete refuses.
func (d *driver) settle(k refmodel.Key, kind *inputs.Kind) {
	for _, e := range kind.Delete.Effects {
		if e.Rule != "state" || kind.Machine == nil {
			continue
		}
		var busy []string
		for _, r := range d.m.Resources(k) {
			if r.Kind == kind.Param && !r.Gone && !d.g.protected[r.Kind+"/"+r.ID] && meets(r, e.State, e.RefusedIn) {
				busy = append(busy, r.ID)
			}
		}
		if len(busy) == 0 {
			continue
		}
		want := slices.DeleteFunc(slices.Clone(kind.Machine.States), func(s string) bool { return slices.Contains(e.RefusedIn, s) })
		switch {
		case k == refmodel.KeyA:
			d.advance(max(d.cfg.Eval, d.cfg.Train), kind.Param, busy, want...)
		case d.cfg.Clock == nil:
			// The other account's, read with its own key (the first key's
			// advance moved a test clock for both).
			d.awaitAs(k, kind.Param, busy, want)
		}
	}
}

// deleteOrder lists the kinds that refer to others before those they
// refer to (conversations and evaluations before models, models before
// datasets).
func (d *driver) deleteOrder() []*inputs.Kind {
	var out []*inputs.Kind
	placed := map[*inputs.Kind]bool{}
	var place func(k *inputs.Kind)
	place = func(k *inputs.Kind) {
		if placed[k] {
			return
		}
		placed[k] = true
		for _, o := range d.cat.Kinds {
			for _, ref := range o.Refs {
				if ref.Kind == k {
					place(o)
				}
			}
		}
		out = append(out, k)
	}
	for _, k := range d.cat.Kinds {
		place(k)
	}
	return out
}

// keys are the accounts driven.
func (d *driver) keys() []refmodel.Key {
	if d.cfg.OneAccount {
		return []refmodel.Key{refmodel.KeyA}
	}
	return []refmodel.Key{refmodel.KeyA, refmodel.KeyB}
}

// walkAll reads every list of the account to its end: the whole lists,
// then the lists scoped to a parent once the parents are known, then the
// lists of each item's collection.
func (d *driver) walkAll(k refmodel.Key) {
	for _, kind := range d.cat.Kinds {
		if kind.List != nil && kind.Scope == "" {
			d.walk(refmodel.Call{Op: kind.List.ID, Key: k})
		}
	}
	for _, kind := range d.cat.Kinds {
		if kind.List == nil || kind.Scope == "" {
			continue
		}
		for _, r := range d.m.Resources(k) {
			if r.Kind == kind.Scope && !r.Gone {
				d.walk(refmodel.Call{Op: kind.List.ID, Key: k, Query: query(kind.Scope, r.ID)})
			}
		}
	}
	for _, kind := range d.cat.Kinds {
		for _, op := range kind.Children {
			for _, r := range d.m.Resources(k) {
				if r.Kind == kind.Param && !r.Gone {
					d.walk(refmodel.Call{Op: op.ID, Key: k, Path: map[string]string{kind.Param: r.ID}})
				}
			}
		}
	}
}

// walk reads a list page by page until a page is empty, by the paging
// parameters its x-paging marks name (by pages from 1, or by offsets from
// 0, each offset after the items read); a list without them is read once.
// Pages of two: a list longer than a page is the common case then, and
// what paging gets wrong (a page one item too long, an item on two pages)
// shows only there.
func (d *driver) walk(c refmodel.Call) {
	const per = 2
	op := d.cat.Op(c.Op)
	var size, at string
	first := 0
	for _, f := range op.Fields {
		switch f.Paging {
		case "size":
			size = f.Name
		case "page":
			at, first = f.Name, 1
		case "offset":
			at = f.Name
		}
	}
	if size == "" || at == "" {
		d.do(c)
		return
	}
	next := first
	var prev any
	for range 80 {
		if d.stopped() {
			return
		}
		q := query()
		for k, v := range c.Query {
			q[k] = v
		}
		q.Set(size, strconv.Itoa(per))
		q.Set(at, strconv.Itoa(next))
		c.Query = q
		a := d.do(c)
		n := items(a)
		if a.Status != 200 || n == 0 {
			return
		}
		// A page that repeats the one before: the server ignores the
		// paging parameters (their names are decided), every page is
		// this one.
		body, _ := a.Body.(map[string]any)
		data := body["data"]
		if prev != nil && reflect.DeepEqual(data, prev) {
			return
		}
		prev = data
		if first == 1 {
			next++
		} else {
			next += n
		}
	}
}

// items counts the items of a list answer: its data, or the list its
// data holds (a page object).
func items(a refmodel.Answer) int {
	data, _ := a.Body.(map[string]any)
	switch v := data["data"].(type) {
	case []any:
		return len(v)
	case map[string]any:
		for _, x := range v {
			if list, ok := x.([]any); ok {
				return len(list)
			}
		}
	}
	return 0
}

// createdID is the id a create answered with, "" when it failed.
func createdID(a refmodel.Answer) string {
	if a.Status != 200 {
		return ""
	}
	data, _ := a.Body.(map[string]any)
	obj, _ := data["data"].(map[string]any)
	switch id := obj["id"].(type) {
	case string:
		return id
	case fmt.Stringer:
		return id.String()
	}
	return ""
}

// random runs n random steps: any operation, with a fault now and then
// (successes most often), either key, the clock moved now and then, a
// call repeated.
func (d *driver) random(n int) {
	g := d.g
	var last *refmodel.Call
	for range n {
		g.key = refmodel.Key(g.r.IntN(2))
		if d.cfg.OneAccount {
			g.key = refmodel.KeyA
		}
		if g.chance(8) {
			// With a Clock only: a real server's time moves by itself.
			d.advance([]time.Duration{d.cfg.Train / 20, d.cfg.Train / 5, d.cfg.Train * 3 / 5, d.cfg.Train * 11 / 10}[g.r.IntN(4)], "", nil)
		}
		if last != nil && g.chance(10) {
			d.do(*last)
			continue
		}
		op := d.cat.Ops[g.r.IntN(len(d.cat.Ops))]
		var faults []inputs.Fault
		if g.chance(3) {
			all := d.cat.FaultsOf(op)
			faults = append(faults, all[g.r.IntN(len(all))])
		}
		c, ok := g.call(op, faults...)
		if !ok {
			continue
		}
		d.do(c)
		last = &c
	}
	g.key = refmodel.KeyA
}
