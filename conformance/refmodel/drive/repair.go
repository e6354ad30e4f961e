package drive

import (
	"slices"
	"strings"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// What a valid call must keep that no schema keyword states: a member of
// each x-alternatives group, a conversation of the model the call names
// (x-refuse same-parent), questions among the samples it sends (x-refuse
// among).

// keep fills each alternatives group of op the call leaves empty with a
// branch drawn at random, then repairs what the x-refuse rules ask.
func (g *gen) keep(op *inputs.Op, c *refmodel.Call) {
	for _, gr := range op.Groups {
		if anyGiven(c, gr.Members) {
			continue
		}
		n := len(gr.Members)
		set := 1 + g.r.IntN(1<<n-1)
		for j, m := range gr.Members {
			if set&(1<<j) != 0 {
				g.fillLoc(op, c, m)
			}
		}
	}
	g.repair(op, c)
}

// anyGiven reports whether the call gives one of the locations.
func anyGiven(c *refmodel.Call, locs []string) bool {
	for _, l := range locs {
		if given(c, l) {
			return true
		}
	}
	return false
}

// given reports whether the call gives the location ("form:files",
// "query:title", "body:title").
func given(c *refmodel.Call, loc string) bool {
	in, name, _ := strings.Cut(loc, ":")
	switch in {
	case "query":
		return c.Query.Has(name)
	case "path":
		return c.Path[name] != ""
	case "form":
		if c.Form == nil {
			return false
		}
		for _, v := range c.Form.Fields[name] {
			if strings.TrimSpace(v) != "" {
				return true // a blank part gives nothing (D-08 drops blank items)
			}
		}
		return slices.ContainsFunc(c.Form.Files, func(f refmodel.File) bool { return f.Field == name })
	}
	b, _ := c.Body.(map[string]any)
	_, ok := b[name]
	return ok
}

// fillLoc gives the call a valid value at a location.
func (g *gen) fillLoc(op *inputs.Op, c *refmodel.Call, loc string) {
	f := op.Field(loc)
	if f == nil {
		return
	}
	switch f.In {
	case "query":
		if c.Query == nil {
			c.Query = query()
		}
		c.Query.Set(f.Name, g.text4query(op, f))
	case "form":
		if c.Form == nil {
			c.Form = &refmodel.Form{Fields: map[string][]string{}}
		}
		if f == op.Files {
			c.Form.Files = g.files(op)
			return
		}
		c.Form.Fields[f.Name] = []string{g.formText(op, f)}
	default:
		b, _ := c.Body.(map[string]any)
		if b == nil {
			b = map[string]any{}
		}
		b[f.Name] = g.value(op, f)
		c.Body = b
	}
}

// unset removes a location from the call.
func unset(c *refmodel.Call, loc string) {
	in, name, _ := strings.Cut(loc, ":")
	switch in {
	case "query":
		c.Query.Del(name)
	case "form":
		if c.Form == nil {
			return
		}
		f := *c.Form
		f.Fields = cloneFields(c.Form.Fields)
		delete(f.Fields, name)
		f.Files = slices.DeleteFunc(slices.Clone(f.Files), func(x refmodel.File) bool { return x.Field == name })
		c.Form = &f
	default:
		if b, ok := c.Body.(map[string]any); ok {
			nb := cloneMap(b)
			delete(nb, name)
			c.Body = nb
		}
	}
}

func cloneFields(m map[string][]string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// repair keeps the call within op's x-refuse rules that read what the
// call itself carries: a conversation of the model it names, questions
// among its samples.
func (g *gen) repair(op *inputs.Op, c *refmodel.Call) {
	body, _ := c.Body.(map[string]any)
	for _, r := range op.Rules {
		switch r.Rule {
		case "same-parent":
			id, ok := body[r.Field]
			parent := idText(body[str(r.Params["field"])])
			if !ok || parent == "" {
				continue
			}
			conv, found := g.pick(r.Field, g.key, g.mine(func(x refmodel.Resource) bool { return !x.Gone && x.Parent == parent }))
			switch {
			case found:
				body[r.Field] = conv.ID
			case idText(id) != "":
				delete(body, r.Field)
			}
		case "among":
			g.among(r, body)
		}
	}
}

// among makes the list field of the rule name only questions its other
// field's items carry, adding items where it names more.
func (g *gen) among(r inputs.Rule, body map[string]any) {
	list, _ := body[r.Field].([]any)
	of, field := str(r.Params["of"]), str(r.Params["field"])
	if body == nil || len(list) == 0 {
		return
	}
	items, _ := body[of].([]any)
	var have []string
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			if q, ok := m[field].(string); ok {
				have = append(have, q)
			}
		}
	}
	for len(have) < len(list) {
		g.n++
		q := sized(g.text("question"), 40) + "?"
		items = append(items, map[string]any{field: q})
		have = append(have, q)
	}
	body[of] = items
	for i := range list {
		list[i] = have[i]
	}
}

func str(v any) string { s, _ := v.(string); return s }
