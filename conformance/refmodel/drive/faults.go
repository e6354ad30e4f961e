package drive

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// Faults a client can give a call (x-fault-order, D-48), each a change of
// a valid call: alone they probe one refusal, two at once the order in
// which a server checks them.

// call builds a call of op with the faults given (none: a success); false
// when one of them cannot be given now (no resource to aim it at).
func (g *gen) call(op *inputs.Op, faults ...inputs.Fault) (refmodel.Call, bool) {
	sh := shape{}
	for _, f := range faults {
		switch f {
		case inputs.FaultMedia, inputs.FaultSize, inputs.FaultSyntax, inputs.FaultSchema:
			sh.body = true
		}
	}
	c, ok := g.build(op, sh)
	if !ok {
		return c, false
	}
	// What changes fields first, what changes the bytes last.
	order := []inputs.Fault{inputs.FaultConflict, inputs.FaultReference, inputs.FaultRule, inputs.FaultSchema, inputs.FaultKey, inputs.FaultSize, inputs.FaultMedia, inputs.FaultSyntax}
	for _, f := range order {
		if slices.Contains(faults, f) && !g.fault(op, &c, f) {
			return c, false
		}
	}
	return c, true
}

// fault gives the call one fault.
func (g *gen) fault(op *inputs.Op, c *refmodel.Call, f inputs.Fault) bool {
	switch f {
	case inputs.FaultKey:
		c.Key = refmodel.KeyBad
		if g.turn("key")%2 == 1 {
			c.Key = refmodel.KeyNone
		} else {
			// Each near miss in turn: a server that compares keys by
			// prefix, by length or folding case takes one of them.
			c.Near = g.turn("near key")
		}
		return true
	case inputs.FaultMedia:
		return wrongMedia(c)
	case inputs.FaultSize:
		return g.large(op, c)
	case inputs.FaultSyntax:
		return malformed(c)
	case inputs.FaultSchema:
		return g.breakSchema(op, c)
	case inputs.FaultRule:
		for _, r := range op.Rules {
			if !r.Reads && g.breakRule(op, c, r) {
				return true
			}
		}
		return false
	case inputs.FaultReference:
		// The two refusals the seed names for an id, in turn: one no
		// resource has, and a deleted one (sent alone by the id pass).
		if g.turn("reference:"+op.ID)%2 == 1 && g.intent(op, c, op.IDs[0], inputs.IntentDeleted) {
			return true
		}
		return g.intent(op, c, op.IDs[0], inputs.IntentNeverSeen)
	case inputs.FaultConflict:
		return g.conflict(op, c)
	}
	return false
}

// wrongMedia sends the body under another media type: JSON as text/plain,
// a form as application/x-www-form-urlencoded.
func wrongMedia(c *refmodel.Call) bool {
	switch {
	case c.Form != nil:
		v := url.Values{}
		for k, vs := range c.Form.Fields {
			v[k] = vs
		}
		c.Form, c.Raw, c.ContentType = nil, []byte(v.Encode()), "application/x-www-form-urlencoded"
	case c.Raw != nil:
		c.ContentType = "text/plain"
	case c.Body != nil:
		b, err := json.Marshal(c.Body)
		if err != nil {
			return false
		}
		c.Body, c.Raw, c.ContentType = nil, b, "text/plain"
	default:
		return false
	}
	return true
}

// malformed cuts the body: JSON that does not end, a form without its end.
func malformed(c *refmodel.Call) bool {
	switch {
	case c.Form != nil:
		c.Form, c.Raw, c.ContentType = nil, []byte("--cut\r\nContent-Disposition: form-data; name=\"files\"\r\n\r\nno end"), "multipart/form-data; boundary=cut"
	case c.Body != nil || c.Raw != nil:
		ct := c.ContentType
		if ct == "" || strings.HasPrefix(ct, "application/json") {
			ct = "application/json"
		}
		c.Body, c.Raw, c.ContentType = nil, []byte(`{"name": "unfinished`), ct
	default:
		return false
	}
	return true
}

// large makes the body larger than the server takes: a JSON body past the
// contract's JSON bound (x-request-limits, D-15), a form past the upload
// limit the run knows.
func (g *gen) large(op *inputs.Op, c *refmodel.Call) bool {
	switch {
	case c.Form != nil:
		if g.uploadLimit <= 0 || op.Files == nil {
			return false
		}
		f := *c.Form
		f.Files = append(slices.Clone(f.Files), refmodel.File{Field: op.Files.Name, Name: "large.txt", Content: []byte(strings.Repeat("lorem ipsum ", g.uploadLimit/10))})
		c.Form = &f
	case c.Body != nil:
		b, ok := c.Body.(map[string]any)
		if !ok {
			return false
		}
		nb := cloneMap(b)
		nb["padding"] = strings.Repeat("x", int(g.cat.JSONBodyBytes)+10)
		c.Body = nb
	default:
		return false
	}
	return true
}

// breakSchema gives the call's schema-fault field (inputs.SchemaFault) a
// value the declared view refuses.
func (g *gen) breakSchema(op *inputs.Op, c *refmodel.Call) bool {
	f := inputs.SchemaFault(op)
	if f == nil {
		return false
	}
	var bad []*inputs.Value
	for _, d := range g.cat.DeriveOp(op) {
		if d.Family == inputs.FamilyValue && d.Field == f.Loc() && d.Value.Declared && !d.Value.Absent {
			bad = append(bad, d.Value)
		}
	}
	if len(bad) == 0 {
		return false
	}
	return g.setValue(op, c, f, bad[g.turn("schema:"+op.ID)%len(bad)])
}

// breakRule makes the call break an x-refuse rule that reads the request
// alone; false for a rule the driver cannot break (no generator).
func (g *gen) breakRule(op *inputs.Op, c *refmodel.Call, r inputs.Rule) bool {
	switch r.Rule {
	case "given": // the field given nowhere
		for _, gr := range op.Groups {
			for _, m := range gr.Members {
				unset(c, m)
			}
		}
		unset(c, "body:"+r.Field)
		unset(c, "query:"+r.Field)
		if c.Body == nil && c.Query.Has(r.Field) {
			c.Query.Del(r.Field)
		}
		if c.Body == nil {
			c.Body = map[string]any{}
		}
		return true
	case "content": // nothing to hold: no file part, no URL
		for _, gr := range op.Groups {
			for _, m := range gr.Members {
				unset(c, m)
			}
		}
		unset(c, "form:"+str(r.Params["urls"]))
		return true
	case "urls": // a URL that is not http(s)
		if c.Form == nil {
			return false
		}
		f := *c.Form
		f.Fields = cloneFields(c.Form.Fields)
		f.Fields[r.Field] = []string{"ftp://files.northwind.example/handbook"}
		c.Form = &f
		return true
	case "name": // a name of characters D-19 refuses
		return setBody(c, r.Field, []string{"😀 emoji", "tab\tbed name"}[g.turn("name")%2])
	case "among": // a question no sample has
		return setBody(c, r.Field, []any{"a question no sample has"})
	}
	return false
}

// Breakable reports whether the driver can break the rule named rule.
func Breakable(rule string) bool {
	return slices.Contains([]string{"given", "content", "urls", "name", "among"}, rule)
}

// setBody sets a field of the call's JSON body.
func setBody(c *refmodel.Call, field string, v any) bool {
	b, _ := c.Body.(map[string]any)
	nb := cloneMap(b)
	nb[field] = v
	c.Body = nb
	return true
}

// conflict aims the call where its resources refuse it: at a resource in a
// state op's x-effect refuses, a conversation of another model (same-parent),
// a taken name.
func (g *gen) conflict(op *inputs.Op, c *refmodel.Call) bool {
	for _, e := range op.Effects {
		if e.Rule != "state" || len(e.RefusedIn) == 0 {
			continue
		}
		f := op.Field("path:" + e.Target)
		if f == nil {
			f = op.Field("body:" + e.Target)
		}
		if f == nil {
			continue
		}
		// Known to be in a refusing state; against a real server, where the
		// clock may have moved it, one that may still be (the model replays
		// what holds only if nothing moved).
		ok := func(r refmodel.Resource) bool { return !r.Gone && within(r, e.State, e.RefusedIn) }
		if !g.frozen {
			ok = func(r refmodel.Resource) bool { return !r.Gone && meets(r, e.State, e.RefusedIn) }
		}
		if changes(op, f) {
			ok = g.mine(ok)
		}
		if r, found := g.pick(f.Kind.Param, g.key, ok); found {
			g.setID(op, c, f, r.ID)
			g.unsetParent(op, c, f)
			return true
		}
	}
	body, _ := c.Body.(map[string]any)
	for _, r := range op.Rules {
		if !r.Reads {
			continue
		}
		parent := idText(body[str(r.Params["field"])])
		if other, found := g.pick(r.Field, g.key, g.mine(func(x refmodel.Resource) bool { return !x.Gone && x.Parent != "" && x.Parent != parent })); found && parent != "" {
			return setBody(c, r.Field, other.ID)
		}
	}
	if f := inputs.UniqueField(op); f != nil {
		taken, found := g.pick(op.Kind.Param, g.key, func(r refmodel.Resource) bool {
			_, has := r.Fields[f.Stored].(string)
			return !r.Gone && has && (op.Role != inputs.RoleUpdate || r.ID != c.Path[op.Kind.Param])
		})
		name, _ := taken.Fields[f.Stored].(string)
		if !found || strings.TrimSpace(name) == "" {
			return false
		}
		if g.chance(2) {
			name = strings.ToUpper(name)
		}
		return setBody(c, f.Name, name)
	}
	return false
}

// unsetParent drops the fields an x-refuse same-parent rule ties to f,
// which a new target of f would break (a conversation of the model no
// longer named).
func (g *gen) unsetParent(op *inputs.Op, c *refmodel.Call, f *inputs.Field) {
	for _, r := range op.Rules {
		if r.Rule == "same-parent" && str(r.Params["field"]) == f.Name {
			unset(c, "body:"+r.Field)
		}
	}
}
