package refmodel

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"contractkit/judge"
)

// Refusals that rest on the resources' states, on unique fields and on the
// request rules a schema cannot state (x-refuse).

// states adds the refusals an action's x-effect `state` entries call for:
// the record it acts on is, or may be, in a state that refuses it.
func (m *Model) states(x *expectation) {
	for i := range x.op.effects {
		e := &x.op.effects[i]
		if e.rule != "state" {
			continue
		}
		r := x.acted(e.str("target"))
		if r == nil {
			continue
		}
		field, refusedIn := e.str("state"), e.list("refused-in")
		status, decision := e.refusal()
		known, poss := r.states[field], m.possible(r, field)
		b := e.basis()
		why := fmt.Sprintf("%s %s is %s, and %s refuses it", strings.TrimSuffix(r.kind.param, "_id"), r.id, poss, strings.Join(refusedIn, "|"))
		rs := reason{Refusal: Refusal{Why: why, Codes: []int{status}, Class: b.class()}, basis: b, codeBasis: basis{decision: decision}.weaker(x.op.codeBasis(status)), rule: "state", state: e, record: r}
		switch {
		case known == nil:
			rs.Why, rs.Class = fmt.Sprintf("%s %s is in a state the model has not seen", strings.TrimSuffix(r.kind.param, "_id"), r.id), judge.Noted
			x.add(rs)
		case poss.within(refusedIn):
			rs.Must = true
			x.add(rs)
		case known.within(refusedIn):
			rs.Must, rs.Timing = true, true
			x.add(rs)
		case poss.meets(refusedIn):
			rs.Class = judge.Noted
			x.add(rs)
		case !poss.within(e.list("allowed-in")):
			x.success = x.success.weaker(b)
		}
	}
	m.allowance(x)
}

// allowance: a write to a record with states, which no x-effect of the
// operation rules on, is allowed in every state by a decision (D-36),
// except in the states where the reference implies it.
func (m *Model) allowance(x *expectation) {
	if x.op.method == "GET" {
		return
	}
	records := []*record{x.target}
	for _, name := range sortedKeys(x.refs) {
		records = append(records, x.refs[name])
	}
	for _, r := range records {
		if r == nil || x.ruled(r) {
			continue
		}
		for field, mach := range r.kind.machines {
			if poss := m.possible(r, field); mach.allows.decision != "" && poss != nil && !poss.within(mach.seedIn) {
				x.success = x.success.weaker(mach.allows)
			}
		}
	}
}

// ruled reports whether an x-effect state entry of the operation rules on
// record r.
func (x *expectation) ruled(r *record) bool {
	for _, e := range x.op.effects {
		if e.rule == "state" && x.acted(e.str("target")) == r {
			return true
		}
	}
	return false
}

// acted is the record an effect names: the operation's item, or a record
// the body names.
func (x *expectation) acted(param string) *record {
	if x.op.kind != nil && x.op.kind.param == param {
		return x.target
	}
	return x.refs[param]
}

// uniqueness adds the refusal of a create or update that gives a unique
// field a value another live record of the account has.
func (m *Model) uniqueness(x *expectation) {
	op := x.op
	if op.kind == nil || (op.role != roleCreate && op.role != roleUpdate) {
		return
	}
	b, _ := x.body.(map[string]any)
	for _, ufield := range sortedKeys(op.kind.unique) {
		mk := op.kind.unique[ufield]
		var v string
		found := false
		for reqField, st := range op.stored {
			if st.field == ufield {
				v, found = b[reqField].(string)
			}
		}
		if !found {
			continue
		}
		fold := mk.str("unique") == "case-insensitive"
		for _, r := range x.acct.records {
			if r.kind != op.kind || r.gone != live || r == x.target {
				continue
			}
			if have, ok := r.stored[ufield].value.(string); ok && sameName(have, v, fold) {
				x.must(fmt.Sprintf("%s %q is taken by %s", ufield, v, r.id), []int{409}, mk.onDecision(), mk.onDecision(), "unique")
				return
			}
		}
		for key, s := range x.acct.scopes {
			for _, n := range s.maybeNames {
				if key.kind == op.kind && sameName(n, v, fold) {
					x.may(fmt.Sprintf("%s %q may be taken by a create whose answer was lost", ufield, v), []int{409}, mk.onDecision(), "unique")
					return
				}
			}
		}
		x.success = x.success.weaker(mk.onDecision())
	}
}

func sameName(a, b string, fold bool) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// refuseRules are the x-refuse rules the model implements: refusals a
// decision states in words that no schema keyword can say (D-08, D-10,
// D-19, D-21, D-23). The contract places each and gives its status; must
// adds the refusal.
var refuseRules = map[string]func(m *Model, x *expectation, e fieldEffect, must func(string), b basis, status int){
	"content": (*Model).contentRule,
	"urls": func(_ *Model, x *expectation, e fieldEffect, must func(string), _ basis, _ int) {
		if x.call.Form == nil {
			return
		}
		for _, u := range splitList(x.call.Form.Fields[e.field], e.str("seps")) {
			p, err := url.Parse(u)
			if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				must(fmt.Sprintf("%s: %q is not an absolute http(s) URL", e.field, u))
			}
		}
	},
	"given": func(_ *Model, x *expectation, e fieldEffect, must func(string), _ basis, _ int) {
		_, inBody := x.call.field(e.str("field"))
		if !inBody && !x.call.Query.Has(e.str("field")) {
			must(e.str("field") + " is given neither in the body nor in the query")
		}
	},
	"among": func(m *Model, x *expectation, e fieldEffect, must func(string), _ basis, _ int) {
		m.amongRule(x, e, must)
	},
	"name": func(_ *Model, x *expectation, e fieldEffect, must func(string), _ basis, _ int) {
		if v, ok := x.call.field(e.field); ok {
			if s, ok := v.(string); ok && !validName(s) {
				must(fmt.Sprintf("%s %q breaks the naming rules", e.field, s))
			}
		}
	},
	"same-parent": func(_ *Model, x *expectation, e fieldEffect, must func(string), _ basis, _ int) {
		r := x.refs[e.field]
		other, ok := x.call.field(e.str("field"))
		if r != nil && ok && r.parent != "" && r.parent != idString(other) {
			must(fmt.Sprintf("%s %s belongs to %s %s, not %s", e.field, r.id, e.str("field"), r.parent, idString(other)))
		}
	},
}

// refuseRule applies one x-refuse entry.
func (m *Model) refuseRule(x *expectation, e fieldEffect) {
	status, decision := e.refusal()
	b := basis{decision: decision}
	reads := m.cat.byParam[e.str("field")] != nil // same-parent: the resources, not the request
	must := func(why string) {
		x.must(why, []int{status}, b, b, "refuse:"+e.rule)
		x.last().reads = reads
	}
	if f := refuseRules[e.rule]; f != nil {
		f(m, x, e, must, b, status)
	}
}

// contentRule: a dataset needs something to hold, a file that can be read
// or a URL (D-08, D-16).
func (m *Model) contentRule(x *expectation, e fieldEffect, must func(string), b basis, status int) {
	if x.call.Form == nil {
		return
	}
	for _, v := range x.call.Form.Fields[e.str("urls")] {
		if strings.TrimSpace(v) != "" {
			return
		}
	}
	files := x.call.files(x.op)
	if len(files) == 0 {
		must("neither a file nor a URL is given")
		return
	}
	kept, unknown := 0, 0
	for _, f := range files {
		switch fateOf(f) {
		case partKept:
			kept++
		case partUnknown:
			unknown++
		}
	}
	switch {
	case kept > 0:
	case unknown == 0:
		must("no file can be read and no URL is given")
	default:
		x.may("no file is sure to be read and no URL is given", []int{status}, b, "refuse:content")
	}
}

func (m *Model) amongRule(x *expectation, e fieldEffect, must func(string)) {
	body, _ := x.body.(map[string]any)
	chosen, _ := array(body[e.field])
	pool, _ := array(body[e.str("of")])
	for _, q := range chosen {
		found := false
		for _, s := range pool {
			if v, ok := dig(s, e.str("field")); ok && v == q {
				found = true
			}
		}
		if !found {
			must(fmt.Sprintf("%s: %s is not the %s of any of %s", e.field, show(q), e.str("field"), e.str("of")))
		}
	}
}

// validName is D-19's naming rule: 1..255 characters after trimming, each
// a letter, a digit, a space or one of - _ . ( ) : /. The contract's
// pattern states the ASCII part of it; letters of every script are the
// part a JSON Schema pattern cannot name portably, so it is written here.
func validName(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || utf8.RuneCountInString(t) > 255 {
		return false
	}
	for _, r := range t {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" -_.():/", r) {
			return false
		}
	}
	return true
}

// splitList splits values on any of seps, trimming and dropping blanks.
func splitList(values []string, seps string) []string {
	var out []string
	for _, v := range values {
		for _, s := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// fate is what becomes of a file part (D-16): kept, refused, or not known
// until the answer says.
type fate int

const (
	partUnknown fate = iota
	partKept
	partFailed
)

// fateOf predicts a part's fate: an empty file is refused (D-16); plain
// UTF-8 text in a text file is kept; anything else (a PDF, a spreadsheet,
// JSON that may not parse) is the server's to judge.
func fateOf(f File) fate {
	switch {
	case len(f.Content) == 0:
		return partFailed
	case utf8.Valid(f.Content) && !bytes.ContainsRune(f.Content, 0) && len(bytes.TrimSpace(f.Content)) > 0 && plainText(f.Name):
		return partKept
	}
	return partUnknown
}

func plainText(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".txt", ".md", ".markdown":
		return true
	}
	return false
}
