package explore

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"contractkit/conformance/client"
	"contractkit/exchange"

	"github.com/getkin/kin-openapi/openapi3"
)

// Building one explored request: the resources it names, its query, its
// body drawn from the contract, and what it must meet (its plan).

// ---- choosing what a request names ----

// target draws the resource an item operation acts on: a live one (most
// often), a deleted one, or an id no resource has.
func (c *exploreCase) target(k *resourceKind, changes bool) (id string, r *resource, why string) {
	live, dead := c.m.live(k), c.m.deleted(k)
	if changes {
		// The written checks' own resources are never deleted or changed.
		live = slices.DeleteFunc(live, func(r *resource) bool { return r.shared })
	}
	switch n := c.g.pick(10, "target"); {
	case n < 7 && len(live) > 0:
		r = live[c.g.pick(len(live), "live")]
		return r.id, r, ""
	case n < 8 && len(dead) > 0:
		r = dead[c.g.pick(len(dead), "dead")]
		return r.id, r, "deleted"
	}
	return unknownPathIDs[c.g.pick(len(unknownPathIDs), "unknown")], nil, "unknown"
}

// refs chooses, before the body is drawn, the resource each field that
// names one will carry. Required fields may name a live, a deleted or an
// unknown resource; optional ones only a live one (refusing an unknown
// optional id is a decision, D-23). A field naming a scoped resource takes
// one under the parent the request already names.
func (c *exploreCase) refs(op *exploreOp, p *plan) map[string]any {
	out := map[string]any{}
	if op.body == nil {
		return out
	}
	names := sortedProperties(op.body)
	// Unscoped kinds first, so a scoped one can follow its parent.
	sort.SliceStable(names, func(i, j int) bool {
		ki, kj := c.x.cat.byParam[names[i]], c.x.cat.byParam[names[j]]
		return ki != nil && kj != nil && ki.scope == "" && kj.scope != ""
	})
	for _, name := range names {
		k := c.x.cat.byParam[name]
		if k == nil || (op.kind == k && op.role != roleOther) {
			continue
		}
		s := op.body.Properties[name].Value
		required := slices.Contains(op.body.Required, name)
		candidates := c.m.live(k)
		if k.scope != "" {
			parent, ok := out[k.scope]
			var under []*resource
			for _, r := range candidates {
				if ok && r.scope == fmt.Sprint(parent) {
					under = append(under, r)
				}
			}
			candidates = under
		}
		var id string
		switch n := c.g.pick(10, "ref."+name); {
		case len(candidates) > 0 && (n < 8 || !required):
			id = candidates[c.g.pick(len(candidates), "ref."+name+".live")].id
		case !required:
			continue
		case n < 9 && len(c.m.deleted(k)) > 0:
			dead := c.m.deleted(k)
			id = dead[c.g.pick(len(dead), "ref."+name+".dead")].id
			c.expectRefusal(p, "names a deleted "+k.param, PropGone, k.gone)
		default:
			if s.Type.Is("integer") {
				id = strconv.FormatInt(unknownNumericIDs[c.g.pick(len(unknownNumericIDs), "ref."+name+".unknown")], 10)
			} else {
				id = unknownPathIDs[c.g.pick(len(unknownPathIDs), "ref."+name+".unknown")]
			}
			c.expectRefusal(p, "names an unknown "+k.param, PropGone, "")
		}
		out[name] = typedID(id, s)
	}
	return out
}

// expectRefusal notes that p must be refused; the first reason wins.
func (c *exploreCase) expectRefusal(p *plan, why, prop, decision string) {
	if p.refuse == "" {
		p.refuse, p.prop, p.decision = why, prop, decision
	}
}

// typedID renders an id as the field's type asks.
func typedID(id string, s *openapi3.Schema) any {
	if s.Type.Is("integer") {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil {
			return n
		}
	}
	return id
}

// ---- building requests ----

// build draws the request for op with path id (or none).
func (c *exploreCase) build(op *exploreOp, id string, p *plan) client.Request {
	r := client.Request{Method: strings.ToUpper(op.Method), Path: op.Path}
	if op.kind != nil && id != "" {
		// Unescaped: the client's URL escapes the path once.
		r.Path = strings.Replace(op.Path, "{"+op.kind.param+"}", id, 1)
	}
	q := url.Values{}
	chosen := c.refs(op, p)
	for _, pr := range op.query {
		if op.paging[pr.Name] != "" || paramDecided(pr) {
			continue
		}
		if c.x.cfg.Permanent && op.role == roleDelete && pr.Name == "permanent" {
			q.Set(pr.Name, "true")
			continue
		}
		if k := c.x.cat.byParam[pr.Name]; k != nil && pr.Required {
			rid, res, why := c.target(k, false)
			if why != "" {
				p.mayRefuse = true // an unknown parent: refused, or an empty list
			}
			_ = res
			q.Set(pr.Name, rid)
			continue
		}
		if pr.Required || c.g.chance(3, "query."+pr.Name) {
			q.Set(pr.Name, fmt.Sprint(c.g.value(pr.Schema.Value, "query."+pr.Name, nil)))
		}
	}
	if len(q) > 0 {
		r.Query = q
	}
	if op.body == nil {
		return r
	}
	ref := func(name string, _ *openapi3.Schema) (any, bool) {
		v, ok := chosen[name]
		return v, ok
	}
	body := c.g.object(op.body, "body", ref)
	// A field naming a resource that refs left out is not drawn at random.
	for name := range body {
		if c.x.cat.byParam[name] != nil && chosen[name] == nil && !(op.kind == c.x.cat.byParam[name] && op.role != roleOther) {
			delete(body, name)
		}
	}
	for name, v := range chosen {
		if slices.Contains(op.body.Required, name) {
			body[name] = v
		}
	}
	if op.role == roleCreate || op.role == roleUpdate {
		c.x.distinguish(op.body, body)
	}
	p.sent = body
	if op.kind != nil && op.kind.scope != "" && op.role == roleCreate {
		p.scope = fmt.Sprint(body[op.kind.scope])
	}
	if op.media == "multipart/form-data" {
		r.Form = c.form(op, body)
		return r
	}
	if op.declBody != nil && c.g.chance(6, "invalid") {
		if broken, what := c.x.breakBody(c.g, op, body); what != "" {
			p.invalid = what
			r.JSON = broken
			return r
		}
	}
	r.JSON = body
	return r
}

// form renders a multipart body: the drawn fields as text parts, and a
// file part or two for every file field.
func (c *exploreCase) form(op *exploreOp, body map[string]any) *exchange.Form {
	f := &exchange.Form{}
	for _, name := range slices.Sorted(maps.Keys(body)) {
		f.Fields = append(f.Fields, exchange.FormField{Name: name, Value: fmt.Sprint(body[name])})
	}
	for _, name := range sortedProperties(op.body) {
		if s := op.body.Properties[name].Value; s != nil && isBinaryArray(s) {
			for i := range 1 + c.g.pick(2, "files") {
				file := c.g.file(fmt.Sprintf("file%d", i))
				file.Field = name
				f.Files = append(f.Files, file)
			}
		}
	}
	return f
}
