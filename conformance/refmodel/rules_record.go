package refmodel

import (
	"fmt"
	"math"
)

// The rules of a record's own fields.

func ruleIdentity(c *cell) {
	if it := c.f.item; it != nil {
		id := idString(c.v)
		if old, ok := it.facts["id"]; ok && !same(c.v, old.value) {
			c.find("identity", "the id it had, "+show(old.value), c.got(), c.mk.onDecision())
		}
		it.facts["id"] = fact{value: c.v}
		if id != "" && c.j.m.seenItem(c.f.rec, it, id) {
			c.find("identity", "an id no other item has", id, c.mk.onDecision())
		}
		return
	}
	if r := c.f.rec; r != nil && idString(c.v) != r.id {
		c.find("identity", r.id, c.got(), c.mk.onSeed())
	}
}

// seenItem reports whether another item of the record's collections has id.
func (m *Model) seenItem(r *record, it *item, id string) bool {
	if r == nil {
		return false
	}
	for _, c := range r.colls {
		for _, other := range c.items {
			if other != it && idString(other.facts["id"].value) == id {
				return true
			}
		}
	}
	return false
}

func ruleStored(c *cell) {
	r := c.f.rec
	if r == nil || c.f.base != "" {
		return
	}
	if f, ok := r.stored[c.name]; ok {
		if !c.present || !same(c.v, f.value) {
			by := "read before"
			if f.by != "" {
				by = f.by + " wrote"
			}
			c.find("stored", fmt.Sprintf("%s (%s)", show(f.value), by), c.got(), f.basis)
		}
		return
	}
	if r.learn || r.learnOne[c.name] {
		if c.present {
			r.stored[c.name] = fact{value: c.v, basis: r.kind.keeps()}
		}
		return
	}
	switch c.mk.str("unset") {
	case "default":
		want := c.j.m.defaultOf(r.kind, c.name, c.s)
		if c.present && !same(c.v, want) {
			c.find("unset", "absent or "+show(want), c.got(), c.defaultBasis(want))
		}
	case "empty":
		if c.present && !blank(c.v) {
			c.find("unset", "absent, null or empty", c.got(), c.mk.onDecision())
		}
	}
	if c.present {
		r.stored[c.name] = fact{value: c.v, basis: c.mk.onDecision()}
	}
}

// defaultBasis is what the default of a field the create left out rests
// on: the reference's clause when the default predicted is one it states
// (spec.FactDefault: §2.1's Default column, §2.4's "default empty string"),
// else the mark's decision (a request field's default, D-09). A seed
// default inside a decided row (D-35 quotes §2.1) is the seed's fact.
func (c *cell) defaultBasis(want any) basis {
	for _, op := range c.j.m.cat.list {
		if op.kind != c.f.rec.kind || op.role != roleCreate {
			continue
		}
		if f, ok := c.j.m.seedDefaults[op.id+" /data/"+escape(c.name)]; ok && same(f.Want, want) {
			return basis{clause: f.Clause}
		}
	}
	return c.mk.onDecision()
}

// defaultOf is what a field the create did not set holds: the default of
// the request field that would have set it, else the field's own (null
// when neither has one).
func (m *Model) defaultOf(k *kind, field string, s *shape) any {
	for _, op := range m.cat.list {
		if op.kind != k || op.role != roleCreate || op.body == nil {
			continue
		}
		for reqField, st := range op.stored {
			if st.field == field && op.body.Properties[reqField] != nil && op.body.Properties[reqField].Value.Default != nil {
				return op.body.Properties[reqField].Value.Default
			}
		}
	}
	return s.dflt
}

func ruleSplit(c *cell) {
	r := c.f.rec
	if r == nil {
		return
	}
	sent, ok := r.sent[c.mk.str("from")]
	switch {
	case r.adopted || r.learn:
		if old, same := c.remember(r.facts, c.key()); !same {
			c.find("latitude", "unchanged: "+show(old.value), c.got(), c.f.rec.kind.keeps())
		}
	case !ok:
		if c.present && !blank(c.v) {
			c.find("split", "absent or empty (nothing was sent)", c.got(), c.mk.onDecision())
		}
	default:
		s, _ := sent.(string)
		parts := splitList([]string{s}, c.mk.str("seps"))
		list := make([]any, len(parts))
		for i, p := range parts {
			list[i] = p
		}
		if c.present && !same(c.v, list) && !same(c.v, s) && !(len(list) == 0 && blank(c.v)) {
			c.find("split", show(list)+" or "+show(s), c.got(), c.mk.onDecision())
		}
	}
}

// paramName is the name of a location ("path:model_id" → "model_id").
func paramName(loc string) string {
	_, name, _ := cut(loc)
	return name
}

// paramDefault is the default of a parameter an echo names: a query
// parameter's schema default, nil when the operation has no such one.
func paramDefault(op *operation, loc string) any {
	where, name, _ := cut(loc)
	if p := op.param(where, name); p != nil && p.Schema != nil && p.Schema.Value != nil {
		return p.Schema.Value.Default
	}
	return nil
}

func ruleTarget(c *cell) {
	r := c.j.x.target
	if r == nil {
		return
	}
	if f, ok := r.stored[c.mk.str("field")]; ok && (!c.present || !same(c.v, f.value)) {
		c.find("target", show(f.value)+" (its "+c.mk.str("field")+")", c.got(), c.mk.onDecision())
	}
}

func ruleState(c *cell) {
	r, mach := c.f.rec, c.s.machine
	s, ok := c.v.(string)
	if r == nil || mach == nil || !ok {
		return
	}
	poss := c.j.m.possible(r, c.name)
	if !mach.known(s) {
		// A state the machine does not name is reported, never adopted:
		// the model keeps what it knew (a value outside the reference's
		// enum breaks the reference).
		b := basis{decision: c.s.decision}
		if c.s.seedMark {
			b = c.mk.onSeed()
		}
		if b.clause == "" && b.decision == "" {
			b = basis{decision: mach.decision}
		}
		c.find("state:unknown", "one of "+setOf(mach.states()...).String(), s, b)
		return
	}
	switch {
	case r.fresh && !contains(mach.initial, s) && mach.known(s):
		b := basis{decision: mach.decision}
		if mach.initialSeed {
			b = c.mk.onSeed()
		}
		c.find("initial", "one of "+setOf(mach.initial...).String(), s, b)
	case !r.fresh && poss != nil && !poss[s] && mach.known(s) && mach.terminalSeed != "" && poss.within(mach.terminal):
		// A state the reference calls terminal moved, and not by an
		// action on it (an action's states are in poss): the move breaks
		// the reference whatever the transitions, which are decided.
		c.find("moves", "one of "+poss.String()+" (a terminal state: only an action moves it)", s, basis{clause: mach.terminalSeed})
	case !r.fresh && poss != nil && !poss[s] && mach.known(s):
		c.find("moves", "one of "+poss.String()+" (its transitions)", s, basis{decision: mach.decision})
	}
	r.states[c.name] = setOf(s)
}

func ruleByState(c *cell) {
	r := c.f.rec
	if r == nil {
		return
	}
	st, ok := c.f.top[c.mk.str("state")].(string)
	if !ok {
		return
	}
	if via := c.mk.str("unless-gone"); via != "" && c.j.m.refGone(r, via, c.f.top) {
		return
	}
	when, _ := c.mk.params["when"].(map[string]any)
	want, ok := when[st]
	if !ok {
		want = when["*"]
	}
	null := !c.present || c.v == nil
	switch want {
	case "present":
		if null {
			c.find("by-state", "a value while "+st, c.got(), c.mk.onDecision())
			return
		}
		if c.s.props != nil {
			c.descend()
			return
		}
		c.after()
		if facts := c.facts(); facts != nil {
			if old, same := c.remember(facts, c.key()); !same {
				c.find("latitude", "unchanged while "+st+": "+show(old.value), c.got(), r.kind.keeps())
			}
		}
	case "null":
		if !null {
			c.find("by-state", "null while "+st, c.got(), c.mk.onDecision())
		}
	case "any":
		if !null {
			c.descend()
		}
	case "rising":
		facts := c.facts()
		if old, seen := facts[c.key()]; seen && old.sig == c.f.sig && !null {
			if a, b := numberOr(c.v), numberOr(old.value); a < b {
				c.find("by-state", fmt.Sprintf("at least %v (it never goes back)", old.value), c.got(), c.mk.onDecision())
			}
		}
		facts[c.key()] = fact{value: c.v, sig: c.f.sig}
	default:
		if !null && !same(c.v, want) {
			c.find("by-state", show(want)+" while "+st, c.got(), c.mk.onDecision())
		}
	}
}

func numberOr(v any) float64 {
	f, ok := number(v)
	if !ok {
		return math.Inf(-1)
	}
	return f
}

// facts is where the cell's remembered values are kept: its collection
// item's, or its record's.
func (c *cell) facts() map[string]fact {
	if c.f.item != nil {
		return c.f.item.facts
	}
	if c.f.rec != nil {
		return c.f.rec.facts
	}
	return nil
}

// after checks a time is not before the record's fields the mark names.
func (c *cell) after() {
	t, ok := instant(c.v)
	if !ok {
		return
	}
	for _, f := range c.mk.list("after") {
		if o, ok := instant(c.f.top[f]); ok && t.Before(o) {
			c.find("time", "not before its "+f+" "+o.Format("2006-01-02T15:04:05.999Z07:00"), c.got(), c.mk.onDecision())
		}
	}
}

// refGone reports whether the record r's field via names a record that is
// gone for good (erased, not soft-deleted).
func (m *Model) refGone(r *record, via string, top map[string]any) bool {
	k := m.cat.byParam[via]
	if k == nil {
		return false
	}
	id := idString(top[via])
	if id == "" {
		id = idString(r.stored[via].value)
	}
	t := m.accts[r.acct].find(k, id)
	return t == nil || t.gone == deleted || t.gone == maybe
}

func ruleRef(c *cell) {
	r := c.f.rec
	if r == nil {
		return
	}
	via, field := c.mk.str("via"), c.mk.str("field")
	k := c.j.m.cat.byParam[via]
	id := idString(c.f.top[via])
	if k == nil || id == "" {
		return
	}
	t := c.j.m.accts[r.acct].find(k, id)
	if t == nil {
		return
	}
	if (t.gone == deleted || t.gone == maybe) && c.mk.str("gone") == "null" {
		if t.gone == deleted && c.present && c.v != nil {
			c.find("ref", "null: its "+via+" is deleted", c.got(), c.mk.onDecision())
		}
		return
	}
	switch {
	case field == k.identityField():
		if idString(c.v) != t.id {
			c.find("ref", t.id, c.got(), c.mk.onDecision())
		}
	case k.machines[field] != nil:
		s, ok := c.v.(string)
		poss := c.j.m.possible(t, field)
		if ok && poss != nil && !poss[s] && k.machines[field].known(s) {
			c.find("ref", "one of "+poss.String()+" (the "+via+"'s own)", s, c.mk.onDecision())
		}
		if ok && !k.machines[field].known(s) {
			c.find("ref", "one of "+setOf(k.machines[field].states()...).String()+" (a state of the "+via+")", s, c.mk.onDecision())
			return // never adopted
		}
		if ok && t.gone == live {
			t.states[field] = setOf(s)
		}
	default:
		if f, ok := t.stored[field]; ok && (!c.present || !same(c.v, f.value)) {
			c.find("ref", show(f.value)+" (the "+via+"'s "+field+")", c.got(), c.mk.onDecision())
		}
	}
}

func ruleLatitude(c *cell) {
	facts := c.facts()
	if facts == nil {
		return
	}
	if old, same := c.remember(facts, c.key()); !same {
		c.find("latitude", "unchanged: "+show(old.value), c.got(), c.mk.onDecision())
	}
}

func ruleConstant(c *cell) {
	want := c.mk.params["value"]
	if want == nil {
		if c.present && c.v != nil {
			c.find("constant", "null", c.got(), c.mk.onSeed())
		}
		return
	}
	if !c.present || !same(c.v, want) {
		c.find("constant", show(want), c.got(), c.mk.onSeed())
	}
}

func ruleObject(c *cell) {
	if _, ok := c.v.(map[string]any); !ok {
		c.find("object", "an object", c.got(), c.mk.onDecision())
		return
	}
	c.descend()
}

func ruleRange(c *cell) {
	if !c.present || c.v == nil {
		return
	}
	f, ok := number(c.v)
	lo, hasLo := number(c.mk.params["min"])
	hi, hasHi := number(c.mk.params["max"])
	if ok && ((hasLo && f < lo) || (hasHi && f > hi)) {
		c.find("range", fmt.Sprintf("within %v..%v", c.mk.params["min"], c.mk.params["max"]), c.got(), c.mk.onDecision())
	}
}

func ruleAnswer(c *cell) {
	if s := c.j.a.Stream; s != nil && (!s.Complete || c.j.a.Cut) {
		return
	}
	if t, ok := c.v.(string); !ok || t == "" {
		c.find("answer", "the answer's text", c.got(), c.mk.onDecision())
	}
}

func ruleTokens(c *cell) {
	n, ok := number(c.v)
	if !ok {
		return
	}
	if text, _ := c.obj[contentField(c.parent)].(string); text != "" && n < 1 {
		c.find("tokens", "at least 1 for an answer", c.got(), c.mk.onDecision())
	}
	if limit, ok := c.j.x.call.value(c.j.x.op, c.mk.str("param")); ok {
		if max, ok := number(limit); ok && n > max {
			c.find("tokens", fmt.Sprintf("at most %v (%s)", max, c.mk.str("param")), c.got(), c.mk.onDecision())
		}
	}
}
