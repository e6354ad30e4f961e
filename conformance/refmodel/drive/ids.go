package drive

import (
	"slices"
	"strconv"
	"strings"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// Ids wherever a request carries them — path, query, JSON body, form — aimed
// at what a client gets wrong: a deleted id, the other account's, a real id
// with its last character dropped or one appended, with leading zeros, one
// past it, another kind's id, a UUID with a character changed or in upper
// case.

// intent aims the id field f of the call at in; false when the model knows
// nothing to make it from.
func (g *gen) intent(op *inputs.Op, c *refmodel.Call, f *inputs.Field, in inputs.Intent) bool {
	kind := f.Kind.Param
	base := func() (refmodel.Resource, bool) {
		ok := live
		if changes(op, f) {
			ok = g.mine(ok) // an id a server may read as this one: never one the accounts held
		}
		return g.pick(kind, g.key, ok)
	}
	var id string
	switch in {
	case inputs.IntentDeleted:
		// One whose parent lives, where there is one: the call then
		// names the parent it had (tieParent), and the deleted id is its
		// only fault.
		r, ok := g.pick(kind, g.key, func(r refmodel.Resource) bool { return r.Gone && g.parentLives(f.Kind, r) })
		if !ok {
			r, ok = g.pick(kind, g.key, gone)
		}
		if !ok {
			return false
		}
		id = r.ID
		defer g.tieParent(op, c, f, r)
	case inputs.IntentForeign:
		r, ok := g.pick(kind, other(g.key), live)
		if !ok {
			return false
		}
		id = r.ID
	case inputs.IntentNeverSeen, inputs.IntentNext, inputs.IntentChanged:
		ids := g.nearFirst(kind, g.m.NearMisses(kind, g.key))
		if f.Kind.IDForm == "number" && in == inputs.IntentNeverSeen {
			ids = []string{"999999999"}
		}
		if len(ids) == 0 {
			return false
		}
		id = ids[g.turn("near:"+op.ID)%min(len(ids), 4)]
	case inputs.IntentDropped, inputs.IntentAppended, inputs.IntentZeros, inputs.IntentUpper:
		r, ok := g.untaken(kind, base, func(id string) string { return spell(id, in) })
		if !ok {
			return false
		}
		id = spell(r.ID, in)
	case inputs.IntentOtherKind:
		var found bool
		id, found = g.otherKindID(f.Kind)
		if !found {
			return false
		}
	default:
		return false
	}
	g.setID(op, c, f, id)
	g.unsetParent(op, c, f)
	return true
}

// parentLives reports whether the resource r of k (deleted or not) is
// scoped under a live resource, or under none.
func (g *gen) parentLives(k *inputs.Kind, r refmodel.Resource) bool {
	if k.Scope == "" || r.Parent == "" {
		return true
	}
	_, ok := g.pick(k.Scope, g.key, func(p refmodel.Resource) bool { return !p.Gone && p.ID == r.Parent })
	return ok
}

// tieParent names, in the fields an x-refuse same-parent rule ties to the
// id field f, the parent the resource r had (a deleted conversation's
// model): a call that continues a deleted conversation with the model it
// belonged to has no fault but the deleted id, where another model would
// add the rule's (D-48 would then decide which is answered).
func (g *gen) tieParent(op *inputs.Op, c *refmodel.Call, f *inputs.Field, r refmodel.Resource) {
	if r.Parent == "" || f.Kind.Scope == "" || !g.parentLives(f.Kind, r) {
		return
	}
	for _, rule := range op.Rules {
		if rule.Rule == "same-parent" && rule.Field == f.Name {
			if pf := op.Field("body:" + str(rule.Params["field"])); pf != nil {
				g.setID(op, c, pf, r.Parent)
			}
		}
	}
}

// spell writes a real id as the intent misspells it.
func spell(id string, in inputs.Intent) string {
	switch in {
	case inputs.IntentDropped:
		if len(id) < 2 {
			return id + id
		}
		return id[:len(id)-1]
	case inputs.IntentAppended:
		if _, err := strconv.ParseInt(id, 10, 64); err == nil {
			return id + "7"
		}
		return id + "0"
	case inputs.IntentZeros:
		return "00" + id
	case inputs.IntentUpper:
		return strings.ToUpper(id)
	}
	return id
}

// untaken picks a base resource whose misspelt id names no resource the
// model knows (of kind, in either account): a truncated id that is another
// real one is no near miss. Where every spelling names one (small ids:
// each one-digit id was made), one naming only a deleted resource: it
// must be answered as missing all the same, and a server that matches ids
// loosely answers it with another. Where every spelling names a live
// resource, none: the dimension waits for a later pass (drive), when the
// run has made and deleted more.
func (g *gen) untaken(kind string, base func() (refmodel.Resource, bool), spelt func(string) string) (refmodel.Resource, bool) {
	known, live := map[string]bool{}, map[string]bool{}
	for _, k := range []refmodel.Key{refmodel.KeyA, refmodel.KeyB} {
		for _, r := range g.m.Resources(k) {
			if r.Kind == kind {
				known[r.ID] = true
				live[r.ID] = live[r.ID] || !r.Gone
			}
		}
	}
	// The run's newest resources first: the ids a client has just been
	// given, the longest ones.
	first, ok := base()
	pool := func(taken map[string]bool) []refmodel.Resource {
		var out []refmodel.Resource
		for _, r := range slices.Backward(g.m.Resources(g.key)) {
			if r.Kind == kind && !r.Gone && !taken[spelt(r.ID)] && !g.protected[r.Kind+"/"+r.ID] {
				out = append(out, r)
			}
		}
		return out
	}
	p := pool(known)
	if len(p) == 0 {
		p = pool(live)
	}
	switch {
	case len(p) > 0 && ok && slices.ContainsFunc(p, func(r refmodel.Resource) bool { return r.ID == first.ID }) && g.chance(2):
		return first, true
	case len(p) > 0:
		return p[g.turn("untaken:"+kind)%min(len(p), 3)], true
	}
	return first, ok && !live[spelt(first.ID)]
}

// otherKindID is the id of a live resource of another kind that no
// resource of k has.
func (g *gen) otherKindID(k *inputs.Kind) (string, bool) {
	taken := map[string]bool{}
	for _, r := range g.m.Resources(g.key) {
		if r.Kind == k.Param {
			taken[r.ID] = true
		}
	}
	for _, o := range g.cat.Kinds {
		if o == k {
			continue
		}
		for _, r := range g.m.Resources(g.key) {
			if r.Kind == o.Param && !r.Gone && !taken[r.ID] {
				return r.ID, true
			}
		}
	}
	return "", false
}
