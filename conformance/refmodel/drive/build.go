package drive

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// Each operation's call, valid and aimed at live resources, built from the
// contract's catalog: its id fields aimed at resources of the account (the
// run's own where the call changes them; in a state the operation's
// x-effect allows), its required fields and some optional ones filled by
// their schemas, and what x-refuse and x-alternatives ask of them kept.

// shape says what a built call must have.
type shape struct {
	// body: the call carries a body even where the body is optional (a
	// rename by query); all: every optional field is given; bare: only the
	// required ones, aimed at resources in a state the reference itself
	// allows the call in (a ready model: what the call may carry is then
	// the reference's alone).
	body, all, bare bool
}

// success builds a call of op as it should succeed; false when the model
// knows nothing to aim it at.
func (g *gen) success(op *inputs.Op) (refmodel.Call, bool) { return g.build(op, shape{}) }

// build builds a call of op with the shape sh.
func (g *gen) build(op *inputs.Op, sh shape) (refmodel.Call, bool) {
	c := refmodel.Call{Op: op.ID, Key: g.key}
	for _, f := range op.IDs {
		if f.In != "path" {
			continue
		}
		r, ok := g.aim(op, f, sh.bare)
		if !ok {
			return c, false
		}
		if c.Path == nil {
			c.Path = map[string]string{}
		}
		c.Path[f.Name] = r.ID
	}
	given := func(f *inputs.Field) bool {
		switch {
		case f.Required:
			return true
		case sh.bare:
			return false
		case sh.all:
			return true
		}
		return g.chance(2)
	}
	for _, f := range op.Fields {
		if f.In == "query" && given(f) && !g.exempt(op, f) {
			if c.Query == nil {
				c.Query = query()
			}
			c.Query.Set(f.Name, g.text4query(op, f))
		}
	}
	for _, f := range op.IDs {
		if f.In == "path" || !given(f) && (sh.bare || !g.wanted(op, f)) {
			continue
		}
		r, ok := g.aim(op, f, sh.bare)
		if !ok {
			if f.Required {
				return c, false
			}
			continue
		}
		g.setID(op, &c, f, r.ID)
	}
	switch op.Media {
	case "application/json":
		if op.BodyRequired || sh.body || !g.groupInQuery(op) {
			body := map[string]any{}
			for _, f := range topFields(op) {
				if given(f) && !g.exempt(op, f) {
					body[f.Name] = g.value(op, f)
				}
			}
			mergeBody(&c, body)
		}
	case "multipart/form-data":
		if c.Form == nil {
			c.Form = &refmodel.Form{Fields: map[string][]string{}}
		}
		for _, f := range topFields(op) {
			if f == op.Files || !given(f) || g.exempt(op, f) {
				continue
			}
			c.Form.Fields[f.Name] = []string{g.formText(op, f)}
		}
		if op.Files != nil && (op.Files.Required || g.chance(2) || sh.all) {
			c.Form.Files = g.files(op)
		}
	}
	g.keep(op, &c)
	return c, true
}

// mergeBody sets the JSON body's fields, keeping those already there (ids).
func mergeBody(c *refmodel.Call, body map[string]any) {
	if old, ok := c.Body.(map[string]any); ok {
		for k, v := range old {
			body[k] = v
		}
	}
	c.Body = body
}

// topFields are op's body fields at the top level.
func topFields(op *inputs.Op) []*inputs.Field {
	var out []*inputs.Field
	for _, f := range op.Fields {
		if (f.In == "body" || f.In == "form") && !strings.ContainsAny(f.Name, ".[") {
			out = append(out, f)
		}
	}
	return out
}

// exempt: a field the success call leaves to another part of the call (a
// member of an alternatives group other than the one it takes).
func (g *gen) exempt(op *inputs.Op, f *inputs.Field) bool {
	for _, gr := range op.Groups {
		if slices.Contains(gr.Members, f.Loc()) {
			return true // keep fills the group
		}
	}
	return false
}

// wanted: an optional id field the call gives now and then (an inference
// continuing a conversation).
func (g *gen) wanted(op *inputs.Op, f *inputs.Field) bool { return g.chance(2) }

// groupInQuery: op's alternatives are met by a query parameter this time
// (a rename by ?title=): no body is sent.
func (g *gen) groupInQuery(op *inputs.Op) bool {
	for _, gr := range op.Groups {
		for _, m := range gr.Members {
			if strings.HasPrefix(m, "query:") && g.chance(4) {
				return true
			}
		}
	}
	return false
}

// setID writes an id into the call's field f, as f's type says.
func (g *gen) setID(op *inputs.Op, c *refmodel.Call, f *inputs.Field, id string) {
	switch f.In {
	case "path":
		if c.Path == nil {
			c.Path = map[string]string{}
		}
		c.Path[f.Name] = id
	case "query":
		if c.Query == nil {
			c.Query = query()
		}
		c.Query.Set(f.Name, id)
	case "form":
		if c.Form == nil {
			c.Form = &refmodel.Form{Fields: map[string][]string{}}
		}
		c.Form.Fields[f.Name] = []string{id}
	default:
		b, _ := c.Body.(map[string]any)
		if b == nil {
			b = map[string]any{}
		}
		if f.Type() == "integer" || f.Type() == "number" {
			b[f.Name] = json.Number(id)
		} else {
			b[f.Name] = id
		}
		c.Body = b
	}
}

// aim picks the resource an id field of op names: live, the run's own
// where the call changes it, in a state op's x-effect allows (most often
// one its effect is allowed in), of the parent another field names where
// an x-refuse same-parent rule asks it.
func (g *gen) aim(op *inputs.Op, f *inputs.Field, allowed bool) (refmodel.Resource, bool) {
	ok := live
	if changes(op, f) {
		ok = g.mine(ok)
	}
	for _, e := range op.Effects {
		if e.Rule != "state" || e.Target != f.Kind.Param {
			continue
		}
		refused := e.RefusedIn
		base := ok
		ok = func(r refmodel.Resource) bool { return base(r) && !meets(r, e.State, refused) }
		if len(e.AllowedIn) > 0 && (allowed || !g.chance(3)) {
			if r, found := g.pick(f.Kind.Param, g.key, func(r refmodel.Resource) bool { return base(r) && within(r, e.State, e.AllowedIn) }); found {
				return r, true
			}
		}
	}
	return g.pick(f.Kind.Param, g.key, ok)
}

// changes reports whether a call of op changes the resource its id field f
// names: a write to its own item, or an effect written into it.
func changes(op *inputs.Op, f *inputs.Field) bool {
	if !op.Writes() {
		return false
	}
	if f.In == "path" && f.Kind == op.Kind {
		return true
	}
	for _, e := range op.Effects {
		if e.Into == f.Kind.Param {
			return true
		}
	}
	return false
}

// meets reports whether r may be in one of states (of its field).
func meets(r refmodel.Resource, field string, states []string) bool {
	for _, s := range r.States[field] {
		if slices.Contains(states, s) {
			return true
		}
	}
	return false
}

// within reports whether r is known to be in one of states only.
func within(r refmodel.Resource, field string, states []string) bool {
	s := r.States[field]
	if len(s) == 0 {
		return false
	}
	for _, x := range s {
		if !slices.Contains(states, x) {
			return false
		}
	}
	return true
}

// minimal is a call of op with its required fields only, valued as the
// operation's first call the server accepted (ids aimed anew, unique
// fields fresh): a call whose values the server took, so that a refusal of
// it is about what differs — the state it meets, one named value, an
// encoding.
func (g *gen) minimal(op *inputs.Op) (refmodel.Call, bool) {
	c, ok := g.build(op, shape{bare: true})
	if !ok {
		return c, false
	}
	first, seen := g.first[op.ID]
	if !seen {
		return c, true
	}
	unique := inputs.UniqueField(op)
	fb, _ := first.Body.(map[string]any)
	if b, isMap := c.Body.(map[string]any); isMap && fb != nil {
		for _, f := range topFields(op) {
			v, has := fb[f.Name]
			switch {
			case !has || !f.Required:
			case f != unique:
				b[f.Name] = v
			case isText(v):
				// Fresh, but of the accepted value's shape (its words, a
				// new number): a text of characters the server has not
				// taken yet would make a refusal the name's, not the
				// difference's.
				b[f.Name] = g.restamp(v.(string))
			}
		}
	}
	for _, f := range op.Fields {
		if f.In == "query" && f.Required && first.Query.Has(f.Name) {
			c.Query.Set(f.Name, first.Query.Get(f.Name))
		}
	}
	g.repair(op, &c)
	return c, true
}

func isText(v any) bool {
	_, ok := v.(string)
	return ok
}

// restamp is t, a unique text the server accepted, with a new unique
// number in place of its own (or after it, when it ends in none), its
// blanks kept, and no longer than t where the number leaves room: the
// words before the number give way to it (a text longer than any the
// server took is not of the accepted shape, and its refusal would be the
// text's).
func (g *gen) restamp(t string) string {
	core := strings.TrimRight(t, " ")
	trail := t[len(core):]
	words := []rune(strings.TrimRight(core, "0123456789"))
	g.n++
	num := strconv.Itoa(g.n)
	lead := len(words) - len([]rune(strings.TrimLeft(string(words), " ")))
	if over := len(words) + len(num) + len(trail) - utf8.RuneCountInString(t); over > 0 && len(words)-over > lead {
		words = words[:len(words)-over]
	}
	return string(words) + num + trail
}
