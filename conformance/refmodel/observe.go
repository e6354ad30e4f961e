package refmodel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"contractkit/judge"
)

// judging is one answer being judged.
type judging struct {
	m *Model
	x *expectation
	a Answer
	// record is the record a single-record answer shows (the item acted
	// on, or the one a create made).
	record *record
	// parts are the fates of the call's file parts, as the answer tells.
	parts []fate
	out   Verdict
}

// Observe judges an answer to c against what the model predicts, and
// learns from it: ids and values the server chose are remembered, states
// are narrowed to what the answer shows, writes and their effects are
// applied. A 429, a 5xx, a cut answer or no answer teaches nothing and
// breaks no prediction, but a write may have happened: what it touched is
// marked uncertain until read again.
func (m *Model) Observe(c Call, a Answer) Verdict {
	x := m.expect(c)
	if x == nil {
		return Verdict{}
	}
	j := &judging{m: m, x: x, a: a}
	switch {
	case a.Status == 429:
		m.unsure(x)
		j.rateLimited()
	case a.Status == 0 || a.Status >= 500:
		m.unsure(x)
	case a.Status >= 200 && a.Status < 300:
		j.success()
	case a.Status >= 400 && a.Status < 500:
		j.refused()
	}
	m.twins(x, a, &j.out)
	m.afterCall(x)
	return j.out
}

// find records a finding at ptr.
func (j *judging) find(ptr, rule, expected, got string, b basis) {
	j.out.Findings = append(j.out.Findings, j.finding(ptr, rule, expected, got, b, b.class()))
}

func (j *judging) finding(ptr, rule, expected, got string, b basis, class judge.Class) judge.Finding {
	return judge.Finding{Operation: j.x.op.id, Side: judge.Server, Pointer: ptr, Rule: rule,
		Expected: expected, Got: got, Decision: b.decision, Clause: b.clause, Class: class}
}

// success judges a 2xx: a refusal that was due, then the answer's fields.
func (j *judging) success() {
	x, got := j.x, strconv.Itoa(j.a.Status)
	for _, r := range x.reasons {
		if !r.Must {
			continue
		}
		f := j.finding("status", r.rule, "refused: "+r.Why, got, r.basis, r.basis.class())
		if r.Timing {
			j.out.Timing = append(j.out.Timing, f)
		} else {
			j.out.Findings = append(j.out.Findings, f)
		}
	}
	if x.acct == nil {
		return // served without a key: what it did, and to whom, is not known
	}
	j.m.accept(x)
	body, isJSON := object(j.a.Body)
	j.negotiated(isJSON)
	if j.a.Cut || (!isJSON && j.a.Stream == nil) {
		if !j.a.Cut && j.a.Stream == nil && x.op.success != nil {
			j.find("body", "json", "a JSON object (the envelope)", "an answer that is not one", basis{clause: "1"})
		}
		j.m.apply(j, nil)
		return
	}
	j.m.apply(j, body)
	switch {
	case j.a.Stream != nil && x.op.chunk != nil:
		j.walkStream()
	case isJSON && x.op.success != nil:
		j.walkObject(frame{}, x.op.success, body, "")
		j.readingsKept(body)
	}
	if j.record != nil {
		j.record.fresh = false
	}
}

// refused judges a 4xx: whether a refusal was due, and with which code.
func (j *judging) refused() {
	x, code := j.x, j.a.Status
	if code == 411 && x.call.Wire.Chunked && spelling(x.call) != nil {
		// A server may require a Content-Length (RFC 9112 §6.3): the
		// call is refused for how it was carried, and tells nothing.
		if body, ok := object(j.a.Body); ok && x.op.failure != nil {
			j.walkObject(frame{}, x.op.failure, body, "")
		}
		return
	}
	if len(x.reasons) == 0 {
		b, class := x.success, x.success.class()
		why := "a valid request"
		switch enc := encodingOf(x.call, x.op); {
		case len(x.unnamed) > 0:
			class = judge.Noted
			why = "a valid request; the reference names no limit on " + strings.Join(x.unnamed, ", ")
		case enc != "" && j.m.took[x.op.id]:
			// The server takes this operation's requests: one that
			// differs only in how its media types are spelt is the same
			// request (D-49, a reading of the seed's JSON over HTTP, §1),
			// whatever the operation's own success rests on.
			b, class = basis{clause: "1"}, judge.Declared
			why = "a valid request; " + enc + " is read as the plain request (D-49)"
		}
		j.out.Findings = append(j.out.Findings, j.finding("status", "refused-valid", "2xx ("+why+")", strconv.Itoa(code), b, class))
	} else if codes := x.codes(); len(codes) > 0 && !slices.Contains(codes, code) {
		b := x.codeBasis()
		j.out.Findings = append(j.out.Findings, j.finding("status", "status-code", "one of "+ints(codes), strconv.Itoa(code), b, b.class()))
	} else if p := j.precedence(code); p != nil {
		b := basis{decision: j.m.cat.faults.decision}
		j.out.Findings = append(j.out.Findings, j.finding("status", "precedence", "one of "+p[0]+" (the "+p[1]+" fault comes first)", strconv.Itoa(code), b, b.class()))
	}
	j.m.narrow(x, code)
	if body, ok := object(j.a.Body); ok && x.op.failure != nil {
		j.walkObject(frame{}, x.op.failure, body, "")
	}
}

// codes are the statuses the reasons allow; nil when one allows any 4xx.
func (x *expectation) codes() []int {
	var out []int
	for _, r := range x.reasons {
		if len(r.Codes) == 0 {
			return nil
		}
		for _, c := range r.Codes {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

// codeBasis is what the exact codes rest on: a decision when any reason's
// code is decided (D-17), the reference when every one is its (401).
func (x *expectation) codeBasis() basis {
	for _, r := range x.reasons {
		if r.codeBasis.decision != "" {
			return r.codeBasis
		}
	}
	if len(x.reasons) > 0 {
		return x.reasons[0].codeBasis
	}
	return x.op.codeBasis()
}

func ints(list []int) string {
	s := make([]string, len(list))
	for i, n := range list {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// narrow learns from a refusal: a record whose state refused it is in a
// refusing state; a record whose delete went unanswered is gone.
func (m *Model) narrow(x *expectation, code int) {
	for _, r := range x.reasons {
		switch {
		case r.state != nil && slices.Contains(r.Codes, code) && r.record != nil:
			field := r.state.str("state")
			set := stateSet{}
			for _, s := range r.state.list("refused-in") {
				if p := m.possible(r.record, field); p == nil || p[s] {
					set[s] = true
				}
			}
			if len(set) > 0 {
				r.record.states[field] = set
			}
		case r.rule == "gone" && code == 404 && r.record != nil && r.record.gone == maybe:
			r.record.gone = deleted
			m.cascade(x.acct, r.record)
		}
	}
}

// unsure marks what a call may have written as unknown: a lost create may
// have made a record, a lost update or action may have changed one.
func (m *Model) unsure(x *expectation) {
	if x.acct == nil {
		return
	}
	op := x.op
	switch op.role {
	case roleCreate:
		parent := ""
		if op.kind.scope != "" {
			if v, ok := x.call.field(op.kind.scope); ok {
				parent = idString(v)
				if pk := m.cat.byParam[op.kind.scope]; pk != nil {
					parent = pk.canonical(parent)
				}
			}
		}
		s := m.scope(x.acct, op.kind, parent)
		s.phantoms++
		for f := range op.kind.unique {
			for reqField, st := range op.stored {
				if v, ok := x.call.field(reqField); ok && st.field == f {
					s.maybeNames = append(s.maybeNames, fmt.Sprint(v))
				}
			}
		}
	case roleDelete:
		if x.target != nil && x.target.gone == live {
			x.target.gone = maybe
		}
	case roleUpdate, roleAction:
		if r := x.target; r != nil {
			r.forget()
			for field, set := range r.states {
				r.states[field] = reach(set, r.kind.machines[field].moves)
			}
		}
	}
	for _, e := range op.effects {
		if r := x.acted(e.str("into")); r != nil {
			for _, c := range r.colls {
				c.unsure()
			}
			r.epoch++
		}
	}
}

// forget drops what the model knew of a record's written and computed
// fields: the next answer is learned, not judged.
func (r *record) forget() {
	r.stored, r.facts = map[string]fact{}, map[string]fact{}
	r.epoch++
	r.hasScored, r.learn = false, true
}

// unsure makes a collection's contents unknown: the next answer is its
// new base.
func (c *collection) unsure() {
	c.whole, c.items, c.base = false, nil, map[string]float64{}
}

// negotiated judges which of its media types a 200 answer came in: the
// first of the x-negotiate order the call's Accept names (parameters
// aside), the first of the order when it names none (D-04).
func (j *judging) negotiated(isJSON bool) {
	order := j.x.op.negotiate
	if len(order) < 2 || j.a.Cut || (!isJSON && j.a.Stream == nil) {
		return
	}
	want := order[0]
	named := map[string]bool{}
	for _, part := range strings.Split(j.x.call.Accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		named[strings.ToLower(strings.TrimSpace(mt))] = true
	}
	for _, m := range order {
		if named[m] {
			want = m
			break
		}
	}
	got := "application/json"
	if j.a.Stream != nil {
		got = "text/event-stream"
	}
	if got != want {
		b := j.x.op.negotiateBasis
		accept := j.x.call.Accept
		if accept == "" {
			accept = "none"
		}
		j.out.Findings = append(j.out.Findings, j.finding("content-type", "negotiate", want+" (Accept: "+accept+")", got, b, b.class()))
	}
}

// rateLimited judges a 429 the client did not wait out: it teaches nothing
// of the state, and its body is the error envelope all the same (§7; a
// limit in front of the API that writes plain text breaks it).
func (j *judging) rateLimited() {
	body, ok := object(j.a.Body)
	switch {
	case !ok && j.a.Stream == nil:
		j.find("body", "json", "a JSON object (the error envelope)", "an answer that is not one", basis{clause: "7"})
	case ok && j.x.op.failure != nil:
		j.walkObject(frame{}, j.x.op.failure, body, "")
	}
}
