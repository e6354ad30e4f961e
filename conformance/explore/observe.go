package explore

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"contractkit/exchange"
	"contractkit/judge"
)

// Judging what an answer shows of the sequence's writes and states.

// compareStored judges every field the sequence wrote into r against data,
// as shown in where ("a later read by id", "its list entry", ...).
func (c *exploreCase) compareStored(x *exchange.Exchange, r *resource, data judge.J, where string, fresh bool) {
	for _, field := range slices.Sorted(maps.Keys(r.stored)) {
		w := r.stored[field]
		got := data.Get(field)
		if sameValue(got, w.value) {
			continue
		}
		shown := got.String()
		if _, present := data.Path("$." + field); !present {
			shown = "no such field"
		}
		c.x.violate(c, finding{prop: PropStored, x: x,
			what:   fmt.Sprintf("%s: %s differs in %s", w.by, field, stableWhere(where)),
			detail: fmt.Sprintf("%s %s: %s wrote %s = %s; %s shows %s", r.kind.param, r.id, w.by, field, show(w.value), where, shown),
			fs:     breaks(w.by, judge.Pointer("data", field), "stored", show(w.value), shown, w.decision)})
	}
}

// stableWhere keeps a failure's text the same from one replay to the next.
func stableWhere(where string) string {
	if strings.HasPrefix(where, "the answer of ") {
		return "a later answer"
	}
	return where
}

// observe judges the state an answer shows against the contract's
// transitions: a new resource in an initial state, then only states the
// moves reach.
func (c *exploreCase) observe(x *exchange.Exchange, r *resource, data judge.J, fresh bool) {
	t := r.kind.states
	st := data.Get("status")
	if t == nil || !st.IsString() {
		return
	}
	s := st.Str()
	switch {
	case !t.known(s):
		c.x.violate(c, finding{prop: PropStates, x: x,
			what:   fmt.Sprintf("%s: a state the transitions do not name", r.kind.param),
			detail: fmt.Sprintf("%s %s is %q, a state the contract's transitions do not name", r.kind.param, r.id, s),
			fs:     breaks(c.x.opOf(x), "/data/status", "state", "a state the transitions name", strconv.Quote(s), t.decision)})
	case fresh && !t.initial[s]:
		decision := t.decision
		if t.initialSeed {
			decision = ""
		}
		initial := quoteList(slices.Sorted(maps.Keys(t.initial)))
		c.x.violate(c, finding{prop: PropStates, x: x,
			what:   fmt.Sprintf("%s: created in a state that is not initial", r.kind.param),
			detail: fmt.Sprintf("new %s %s is %q, want one of %s", r.kind.param, r.id, s, initial),
			fs:     breaks(c.x.opOf(x), "/data/status", "state", "an initial state, one of "+initial, strconv.Quote(s), decision)})
	case r.status != "" && !t.reachable(r.status, s):
		c.x.violate(c, finding{prop: PropStates, x: x,
			what:   fmt.Sprintf("%s: a state the transitions do not reach", r.kind.param),
			detail: fmt.Sprintf("%s %s was %q and is now %q: no transition leads there", r.kind.param, r.id, r.status, s),
			fs:     breaks(c.x.opOf(x), "/data/status", "state", "a state the transitions reach from "+strconv.Quote(r.status), strconv.Quote(s), t.decision)})
	}
	if t.known(s) {
		r.status = s
	}
}
