package drive

import (
	"maps"
	"net/url"
	"slices"
	"time"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
	"contractkit/judge"
)

// pollEvery is the pause between two reads while a state is awaited.
const pollEvery = 150 * time.Millisecond

// read reads the resource id of kind with the first key and returns the
// status its answer shows ("" none).
func (d *driver) read(kind, id string) string { return d.readAs(refmodel.KeyA, kind, id) }

// readAs reads a resource of kind with the key of account k (its get
// operation) and returns the state its machine field shows ("" none).
func (d *driver) readAs(k refmodel.Key, kind, id string) string {
	kd := d.cat.Kind(kind)
	if kd == nil || kd.Get == nil || id == "" {
		return ""
	}
	a := d.do(refmodel.Call{Op: kd.Get.ID, Key: k, Path: map[string]string{kind: id}})
	if kd.Machine == nil {
		return ""
	}
	body, _ := a.Body.(map[string]any)
	data, _ := body["data"].(map[string]any)
	s, _ := data[kd.Machine.Field].(string)
	return s
}

// await reads each resource ids of kind until its status is one of want,
// at most MaxWait in all and never past the run's context: a state that
// never comes is not waited for longer (the tour then meets what there
// is, and says so in its counts).
func (d *driver) await(kind string, ids []string, want []string) {
	d.awaitAs(refmodel.KeyA, kind, ids, want)
}

// awaitAs is await with the key of account k (whose resources they are).
func (d *driver) awaitAs(k refmodel.Key, kind string, ids []string, want []string) {
	until := time.Now().Add(d.cfg.MaxWait)
	pending := slices.Clone(ids)
	last := map[string]string{}
	for len(pending) > 0 && !d.stopped() {
		// The list filtered by the state each one was last seen in comes
		// first, as a page showing one tab per state refreshes it: a
		// server that filters by a state its clock has moved on from
		// lists there what no longer fits (§3.1 rule 2), and a read by
		// id first would have brought it up to date.
		d.listIn(k, kind, last)
		var still []string
		for _, id := range pending {
			s := d.readAs(k, kind, id)
			last[id] = s
			if id != "" && s != "" && !slices.Contains(want, s) {
				still = append(still, id)
			}
		}
		pending = still
		if len(pending) == 0 || time.Now().After(until) {
			return
		}
		t := time.NewTimer(pollEvery)
		select {
		case <-t.C:
		case <-d.ctx.Done():
			t.Stop()
		}
	}
}

// listIn lists the resources of kind filtered by each state one of them
// was last seen in, when its list filters by its machine's field.
func (d *driver) listIn(k refmodel.Key, kind string, last map[string]string) {
	kd := d.cat.Kind(kind)
	if kd == nil || kd.List == nil || kd.Machine == nil || kd.Scope != "" {
		return
	}
	if !slices.ContainsFunc(kd.List.Fields, func(f *inputs.Field) bool { return f.In == "query" && f.Name == kd.Machine.Field }) {
		return
	}
	states := map[string]bool{}
	for _, s := range last {
		if s != "" && !states[s] {
			states[s] = true
			d.do(refmodel.Call{Op: kd.List.ID, Key: k, Query: url.Values{kd.Machine.Field: {s}}})
		}
	}
}

// confirm replays the call of step, whose answer broke fs only if no state
// moved unseen: the resources it names are read first (the model learns
// their states), then the call is sent again. A finding is confirmed when
// the replay breaks the same prediction (firm or again timing),
// unconfirmed otherwise.
func (d *driver) confirm(step int, fs []judge.Finding) {
	d.replay = true
	defer func() { d.replay = false }()
	if d.confirmAnew(step, fs) {
		return
	}
	c := d.run.Steps[step].Call
	for kind, id := range d.named(c) {
		d.read(kind, id)
	}
	at := len(d.run.Steps)
	d.do(c)
	again := map[string]bool{}
	if at < len(d.run.Steps) {
		v := d.run.Steps[at].Verdict
		for _, g := range slices.Concat(v.Findings, v.Timing) {
			again[g.Key()] = true
		}
	} else {
		at = -1 // the run ended before the replay
	}
	for _, f := range fs {
		if again[f.Key()] {
			d.run.Found = append(d.run.Found, Found{Step: step, Finding: f, Replay: at})
		} else {
			d.run.Unconfirmed = append(d.run.Unconfirmed, Found{Step: step, Finding: f, Replay: at})
		}
	}
}

// named are the resources a call names by id that have a read: in its
// path, its query or its body.
func (d *driver) named(c refmodel.Call) map[string]string {
	out := map[string]string{}
	body, _ := c.Body.(map[string]any)
	for _, k := range d.cat.Kinds {
		if k.Get == nil {
			continue
		}
		kind := k.Param
		switch {
		case c.Path[kind] != "":
			out[kind] = c.Path[kind]
		case c.Query.Get(kind) != "":
			out[kind] = c.Query.Get(kind)
		case body[kind] != nil:
			out[kind] = idText(body[kind])
		}
	}
	return out
}

// idText is an id a body carries, as text.
func idText(v any) string {
	switch id := v.(type) {
	case string:
		return id
	case interface{ String() string }:
		return id.String()
	}
	return ""
}

// confirmAnew confirms a timing finding of a delete that took (a running
// evaluation deleted, the refusal sent before it let through): the delete
// removed what it broke on, so sending it again meets nothing. The
// scenario is replayed on a fresh resource instead — made, put in the
// state the delete must refuse, and sent the same call, again when it is
// refused. A finding is confirmed when the last call breaks the same rule
// again, unconfirmed otherwise; false when the step is not such a delete
// (confirm replays it as it is).
func (d *driver) confirmAnew(step int, fs []judge.Finding) bool {
	st := d.run.Steps[step]
	op := d.cat.Op(st.Call.Op)
	if op == nil || op.Role != inputs.RoleDelete || st.Status/100 != 2 || op.Kind == nil || op.Kind.Machine == nil {
		return false
	}
	k, id := op.Kind, st.Call.Path[op.Kind.Param]
	var refusing []string
	for _, e := range op.Effects {
		if e.Rule == "state" {
			refusing = append(refusing, e.RefusedIn...)
		}
	}
	if id == "" || len(refusing) == 0 {
		return false
	}
	fresh := ""
	for _, s := range refusing {
		if ids := d.makeN(k, 1, nil, d.fed); len(ids) == 1 && ids[0] != "" && d.actTo(k, ids, s) {
			fresh = ids[0]
			break
		}
	}
	at := -1
	if fresh != "" {
		aim := func(c refmodel.Call) refmodel.Call {
			c.Path = maps.Clone(c.Path)
			c.Path[k.Param] = fresh
			return c
		}
		// Refused, it is sent again, as a client retries: a server that
		// lets a delete through once it refused it (the break the step
		// may have shown: its own refusal came earlier) does it again.
		for range 2 {
			at = len(d.run.Steps)
			if a := d.do(aim(st.Call)); at >= len(d.run.Steps) {
				at = -1
				break
			} else if a.Status/100 != 4 {
				break
			}
		}
	}
	for _, f := range fs {
		found := Found{Step: step, Finding: f, Replay: at}
		if at >= 0 && breaksAgain(d.run.Steps[at].Verdict, f) {
			d.run.Found = append(d.run.Found, found)
		} else {
			d.run.Unconfirmed = append(d.run.Unconfirmed, found)
		}
	}
	return true
}

// breaksAgain reports whether a verdict on another resource breaks the
// rule f broke: the same operation, side, pointer, rule, decision and
// class (what it expected names the other resource).
func breaksAgain(v refmodel.Verdict, f judge.Finding) bool {
	for _, g := range slices.Concat(v.Findings, v.Timing) {
		if g.Operation == f.Operation && g.Side == f.Side && g.Pointer == f.Pointer && g.Rule == f.Rule && g.Decision == f.Decision && g.Class == f.Class {
			return true
		}
	}
	return false
}
