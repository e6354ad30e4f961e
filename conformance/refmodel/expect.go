package refmodel

import (
	"encoding/json"
	"fmt"
	"mime"
	"slices"
	"sort"
	"strings"

	"contractkit/judge"
	"contractkit/spec"
)

// Refusal is one reason a call must or may be refused.
type Refusal struct {
	// Why says it ("model_id names a deleted model").
	Why string
	// Codes are the statuses the refusal may carry; nil: any 4xx.
	Codes []int
	// Must: the call must be refused (otherwise it may be).
	Must bool
	// Timing: it must be refused only if no state moved unseen since the
	// model last saw it.
	Timing bool
	// Class is what a success despite it weighs.
	Class judge.Class
}

// Expectation is what a call may meet, known before it is sent.
type Expectation struct {
	// Success: the call may succeed.
	Success bool
	// Refusals are why it must or may be refused.
	Refusals []Refusal
}

// Statuses are the codes the call may get: 200 when it may succeed, and
// each refusal's codes (a refusal without codes is counted as 422).
func (e Expectation) Statuses() []int {
	seen := map[int]bool{}
	if e.Success {
		seen[200] = true
	}
	for _, r := range e.Refusals {
		if len(r.Codes) == 0 {
			seen[422] = true
		}
		for _, c := range r.Codes {
			seen[c] = true
		}
	}
	var out []int
	for c := range seen {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}

// reason is a refusal with what the model needs to judge it.
type reason struct {
	Refusal
	basis     basis // what the refusal rests on
	codeBasis basis // what its exact codes rest on
	rule      string
	// fault is the fault of the request the refusal answers (x-fault-order,
	// D-48): "request" refusals say which; the others follow from rule.
	fault string
	// reads: an x-refuse rule that reads the resources (a conflict).
	reads bool
	// state is the x-effect entry and the record whose state refuses it.
	state  *effect
	record *record
}

// expectation is the model's whole view of a call before it is sent.
type expectation struct {
	op      *operation
	call    Call
	acct    *account // nil for a key no account has
	reasons []reason
	// success is what predicting a success rests on.
	success basis
	// unnamed are request values the reference does not name and no
	// success answered: a refusal may rest on a limit the reference does
	// not show.
	unnamed []string
	target  *record
	// refs are the live records the request names, by field.
	refs map[string]*record
	// body is the JSON body as the server reads it (Raw decoded).
	body any
	// multi are the form fields the call sent in several parts that are
	// read from their first (D-08).
	multi map[string]bool
	// readings are the x-lenient readings the call was read by (D-21).
	readings []applied
}

// Expect says what a call may meet: whether it may succeed, and why it
// must or may be refused.
func (m *Model) Expect(c Call) Expectation {
	x := m.expect(c)
	if x == nil {
		return Expectation{}
	}
	out := Expectation{Success: true}
	for _, r := range x.reasons {
		out.Refusals = append(out.Refusals, r.Refusal)
		if r.Must && !r.Timing {
			out.Success = false
		}
	}
	return out
}

func (m *Model) expect(c Call) *expectation {
	op := m.cat.ops[c.Op]
	if op == nil {
		return nil
	}
	// A success rests on the reference's endpoint (§4) until a decision is
	// needed to predict it.
	x := &expectation{op: op, call: c, refs: map[string]*record{}, body: c.Body, success: basis{clause: "4"}}
	if !c.Key.account() {
		why := "the call carries no key"
		if c.Key == KeyBad {
			why = "the key is not one the server gave"
		}
		x.must(why, []int{401}, basis{clause: "5.3"}, op.codeBasis(401), "auth")
		return x
	}
	x.acct = m.accts[c.Key]
	m.readLeniently(x)
	m.parts(x)
	m.validity(x)
	m.references(x)
	m.states(x)
	m.uniqueness(x)
	for _, e := range op.refuses {
		m.refuseRule(x, e)
	}
	x.unnamed = m.unnamed(x)
	return x
}

func (x *expectation) add(r reason) { x.reasons = append(x.reasons, r) }

// last is the reason added last.
func (x *expectation) last() *reason { return &x.reasons[len(x.reasons)-1] }

// mediaOf is the media type a call's body is sent as: its Content-Type
// without parameters, lower-cased; a JSON body's or a form's own type when
// the call names none.
func mediaOf(c Call) string {
	switch {
	case c.ContentType != "":
		mt, _, err := mime.ParseMediaType(c.ContentType)
		if err != nil {
			return strings.ToLower(strings.TrimSpace(c.ContentType))
		}
		return mt
	case c.Form != nil:
		return "multipart/form-data"
	case c.Body != nil:
		return "application/json"
	}
	return ""
}

func (x *expectation) must(why string, codes []int, b, cb basis, rule string) {
	x.add(reason{Refusal: Refusal{Why: why, Codes: codes, Must: true, Class: b.class()}, basis: b, codeBasis: cb, rule: rule})
}

func (x *expectation) may(why string, codes []int, b basis, rule string) {
	x.add(reason{Refusal: Refusal{Why: why, Codes: codes, Class: judge.Noted}, basis: b, codeBasis: b, rule: rule})
}

// maxPlainBody is the largest request body the model expects a server to
// take whatever its limits: the reference shows none (§8.4), so a larger
// one may be refused (413).
const maxPlainBody = 64 << 10

// validity judges the request against the contract: a request the declared
// view refuses must be refused; one only the written contract refuses (a
// decided bound) may be.
func (m *Model) validity(x *expectation) {
	c, op := x.call, x.op
	media := mediaOf(c)
	if c.Raw != nil && op.media == "application/json" {
		var v any
		switch err := json.Unmarshal(c.Raw, &v); {
		case err == nil:
			x.body = v
			x.call.Body = v // the fields the request writes, as the server reads them
		case media == "" || media == op.media:
			x.must("the body is not JSON", []int{400, 422}, basis{clause: "1"}, op.codeBasis(400, 422), "request")
			x.last().fault = faultSyntax
			return
		}
	}
	valid := c
	var cut int
	valid.Body, cut = shrunk(x.body, op.body)
	valid.Raw = nil
	r, err := valid.request(op)
	if err != nil {
		return
	}
	size := r.ContentLength + int64(cut)
	if ok, errs := m.declared.Request(op.id).Validate(r); !ok {
		x.must("it breaks the declared request schema: "+strings.Join(spec.Describe(errs), "; "), []int{400, 413, 422}, basis{clause: "4"}, op.codeBasis(400, 413, 422), "request")
		switch {
		case op.media != "" && (c.Raw != nil || c.Body != nil || c.Form != nil) && media != op.media:
			x.last().fault = faultMedia
		case c.Raw != nil && op.media == "multipart/form-data":
			x.last().fault = faultSyntax
		}
	} else if r2, err := valid.request(op); err == nil {
		if ok, errs := m.strict.Request(op.id).Validate(r2); !ok {
			x.may("it breaks a decided bound: "+strings.Join(spec.Describe(errs), "; "), []int{400, 413, 422}, op.codeBasis(400, 413, 422), "request")
		}
	}
	if size > maxPlainBody {
		x.may("its body is large and the reference shows no limit", []int{413}, op.codeBasis(413), "request")
		x.last().fault = faultSize
	}
	if c.Form != nil {
		for _, name := range sortedKeys(c.Form.Fields) {
			ps := propSchema(op.body, name)
			if ps == nil {
				continue
			}
			sp, ok, err := spec.SplitOf(ps)
			if ok && err == nil && len(splitList(c.Form.Fields[name], sp.Separators)) > sp.MaxItems {
				x.may(fmt.Sprintf("%s holds more than %d items (x-split)", name, sp.MaxItems), []int{422}, basis{decision: "D-28"}, "request")
			}
		}
	}
	for _, field := range blankFields(x) {
		x.may(field+" is blank: a server may trim it to nothing", []int{400, 422}, op.codeBasis(400, 422), "request")
	}
}

// blankFields lists the request's string fields that are blank after
// trimming while not empty.
func blankFields(x *expectation) []string {
	var out []string
	check := func(name string, v any) {
		if s, ok := v.(string); ok && s != "" && strings.TrimSpace(s) == "" {
			out = append(out, name)
		}
	}
	if b, ok := x.body.(map[string]any); ok {
		for _, k := range sortedKeys(b) {
			check(k, b[k])
		}
	}
	if x.call.Form != nil {
		for _, k := range sortedKeys(x.call.Form.Fields) {
			for _, v := range x.call.Form.Fields[k] {
				check(k, v)
			}
		}
	}
	for _, k := range sortedKeys(x.call.Query) {
		check(k, x.call.Query.Get(k))
	}
	return out
}

// references resolves every id the call names: its path's item and the
// fields and parameters named like an item's parameter.
func (m *Model) references(x *expectation) {
	op := x.op
	if op.kind != nil && op.role != roleCreate && op.role != roleList {
		id := x.call.Path[op.kind.param]
		x.target = m.resolve(x, op.kind, id, "path:"+op.kind.param, false)
	}
	named := func(name string, v any, query bool) {
		k := m.cat.byParam[name]
		if k == nil || (op.kind == k && op.role != roleCreate && op.role != roleList) {
			return
		}
		if r := m.resolve(x, k, idString(v), field(query, name), query); r != nil {
			x.refs[name] = r
		}
	}
	if b, ok := x.body.(map[string]any); ok {
		for _, name := range sortedKeys(b) {
			named(name, b[name], false)
		}
	}
	if x.call.Form != nil {
		for _, name := range sortedKeys(x.call.Form.Fields) {
			named(name, strings.TrimSpace(x.call.Form.Fields[name][0]), false)
		}
	}
	for _, p := range op.params {
		if p.In == "query" && x.call.Query.Has(p.Name) {
			named(p.Name, x.call.Query.Get(p.Name), true)
		}
	}
}

func field(query bool, name string) string {
	if query {
		return "query:" + name
	}
	return name
}

// resolve finds the record id names and adds the refusals its absence
// calls for. A query parameter that names nothing may be refused or answer
// an empty list (the reference says nothing of it).
func (m *Model) resolve(x *expectation, k *kind, id, where string, query bool) *record {
	r := x.acct.find(k, id)
	aliased := false
	if c := k.canonical(id); r == nil && c != id {
		// An id that spells a real one another way (D-20): the server may
		// read it as that resource, or refuse it.
		id, aliased = c, true
		r = x.acct.find(k, id)
	}
	refuse := func(why string, b basis) {
		if query {
			x.may(why, []int{404}, b, "gone")
			return
		}
		x.must(why, []int{404}, b, x.op.codeBasis(404), "gone")
	}
	name := strings.TrimSuffix(k.param, "_id")
	switch {
	case r != nil && r.gone == live:
		if aliased {
			x.may(fmt.Sprintf("%s spells %s %s another way", where, name, id), []int{404}, basis{decision: "D-20"}, "gone")
		}
		if p := m.orphaned(x.acct, r); p != nil {
			x.may(fmt.Sprintf("%s names a %s whose %s's delete went unanswered", where, name, strings.TrimSuffix(p.kind.param, "_id")), []int{404}, basis{clause: "4"}, "gone")
		}
		return r
	case r != nil && r.gone == maybe:
		x.add(reason{Refusal: Refusal{Why: fmt.Sprintf("%s names a %s whose delete went unanswered", where, name), Codes: []int{404}, Class: judge.Noted},
			basis: basis{clause: "4"}, codeBasis: x.op.codeBasis(404), rule: "gone", record: r})
		return r
	case r != nil:
		refuse(fmt.Sprintf("%s names a deleted %s", where, name), r.goneBasis)
		return nil
	}
	if _, other := m.holder(k, id); other != nil {
		refuse(fmt.Sprintf("%s names the other account's %s", where, name), basis{clause: "4"})
		return nil
	}
	if m.wholeKind(x.acct, k) {
		refuse(fmt.Sprintf("%s names no %s of the account", where, name), basis{clause: "4"})
	} else {
		x.may(fmt.Sprintf("%s names a %s the model has not seen", where, name), []int{404}, basis{clause: "4"}, "gone")
	}
	return nil
}

// wholeKind reports whether the model knows every record of kind in the
// account: the world is closed, or every scope of it was walked whole.
func (m *Model) wholeKind(a *account, k *kind) bool {
	if m.cfg.Closed {
		return true
	}
	whole := func(k *kind, parent string) bool {
		s := m.scope(a, k, parent)
		return s.whole && s.phantoms == 0
	}
	if k.scope == "" {
		return whole(k, "")
	}
	// A scoped kind is known whole when its parents are, and the list of
	// each live parent is.
	parent := m.cat.byParam[k.scope]
	if parent == nil || !m.wholeKind(a, parent) {
		return false
	}
	for _, r := range a.records {
		if r.kind == parent && r.gone == live && !whole(k, r.id) {
			return false
		}
	}
	return true
}

// encodingOf names how a call spells its media types and how it is
// carried, other than the plain way a server takes (D-49): a Content-Type
// with parameters or in another case, one on a call without a body, an
// Accept list, a wildcard or parameters, and its Wire (a body chunked or
// after Expect: 100-continue, a space in the query as + or %20, path ids
// percent-encoded); "" when it spells them plainly.
func encodingOf(c Call, op *operation) string {
	var out []string
	switch ct := strings.TrimSpace(c.ContentType); {
	case ct == "":
	case c.Body == nil && c.Raw == nil && c.Form == nil:
		out = append(out, "a Content-Type on a call without a body")
	case !plainType(ct):
		out = append(out, "Content-Type: "+ct)
	}
	if a := strings.TrimSpace(c.Accept); a != "" && !slices.Contains(op.negotiate, a) && a != op.media && a != "application/json" {
		out = append(out, "Accept: "+a)
	}
	out = append(out, spelling(c)...)
	return strings.Join(out, " and ")
}

// plainType reports whether a Content-Type is its media type spelt in
// lower case with no parameter but a multipart form's boundary.
func plainType(ct string) bool {
	mt, params, err := mime.ParseMediaType(ct)
	delete(params, "boundary")
	return err == nil && len(params) == 0 && strings.HasPrefix(ct, mt)
}
