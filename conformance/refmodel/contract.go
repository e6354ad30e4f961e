package refmodel

import (
	"contractkit/spec"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The contract as the model reads it: resources are the paths
// collection/{param} whose collection is a path too; a field or parameter
// named like an item's parameter names that resource; a list whose
// operation requires such a query parameter is scoped to it; the rest is
// marks (x-predict, x-effect, x-refuse, x-stored, x-paging, x-transitions).

// role is what an operation does to its resource.
type role int

const (
	roleOther  role = iota // under no resource (inference, upload, check-name)
	roleCreate             // POST collection
	roleList               // GET collection
	roleGet                // GET item
	roleUpdate             // PUT or PATCH item
	roleDelete             // DELETE item
	roleAction             // POST item/suffix (start, run-ragas)
	roleChild              // GET item/suffix: a list of the item's collection
)

// kind is a resource of the contract.
type kind struct {
	param      string // "model_id"
	collection string
	item       string
	// record is the item's schema: the data of its get (or create) answer.
	record *shape
	// scope is the query parameter that restricts its list to a parent
	// ("model_id" for conversations), "" when the list is whole.
	scope string
	// machines are the record's state fields.
	machines map[string]*machine
	// refs are the record's fields that name another resource, and what
	// a delete of that resource does to the record.
	refs map[string]refField
	// unique are fields no two live records of an account share.
	unique map[string]*mark
	// colls are the collections a record holds ("messages", "files").
	colls []string
	// numeric: its ids are integers (its identity field's type).
	numeric bool
}

// refField is a field of a record that names another resource.
type refField struct {
	kind     *kind
	onDelete string // "cascade": deleted with it; "keep": stays
	basis    basis
}

// storage is where a request field is kept (x-stored).
type storage struct {
	field string // "" when not kept as sent
	basis basis
}

// operation is one operation of the contract as the model drives it.
type operation struct {
	id, method, path string
	// clause is the reference's clause that states the operation (its
	// x-seed mark, "4.2.4"), "" without one.
	clause string
	role   role
	kind   *kind
	coll   string // the collection a child list lists
	body   *openapi3.Schema
	media  string
	// files is the body's field of binary items (a multipart upload).
	files    string
	params   []*openapi3.Parameter
	paging   map[string]string // "size", "offset", "page" → parameter
	success  *shape            // the 200 JSON envelope
	chunk    *shape            // an event stream's chunk (x-event-schema)
	failure  *shape            // the error envelope
	effects  []effect
	refuses  []fieldEffect
	stored   map[string]storage
	statuses []int
	// codes are what answering with each documented status rests on: the
	// decision its response carries (D-17, D-15), else the reference (§7).
	codes map[int]basis
	// decided is the basis of the operation's own x-decision, when decided
	// (D-07 on the dataset delete: what a delete does is ours).
	decided basis
	// negotiate is the 200 answer's media types in its x-negotiate order
	// (D-04), nil when it has one.
	negotiate      []string
	negotiateBasis basis
}

// fieldEffect is an x-refuse rule and the request field it stands on ("" the
// whole request).
type fieldEffect struct {
	effect
	field string
}

// catalog is the whole contract as the model reads it.
type catalog struct {
	kinds   []*kind
	byParam map[string]*kind
	ops     map[string]*operation
	list    []*operation
	// faults is the order of the request's faults (x-fault-order, D-48).
	faults faultOrder
}

var itemPath = regexp.MustCompile(`^(.*)/\{([A-Za-z_]+)\}$`)

// newCatalog reads doc, the contract as written.
func newCatalog(doc *openapi3.T) *catalog {
	c := &catalog{byParam: map[string]*kind{}, ops: map[string]*operation{}, faults: readFaultOrder(doc)}
	comp := newCompiler(doc)
	paths := doc.Paths.Map()
	for p := range paths {
		if m := itemPath.FindStringSubmatch(p); m != nil && paths[m[1]] != nil {
			k := &kind{collection: m[1], param: m[2], item: p, machines: map[string]*machine{}, refs: map[string]refField{}, unique: map[string]*mark{}}
			c.kinds = append(c.kinds, k)
			c.byParam[k.param] = k
		}
	}
	sort.Slice(c.kinds, func(i, j int) bool { return c.kinds[i].param < c.kinds[j].param })
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		item := paths[p]
		for method, op := range item.Operations() {
			c.add(comp, p, strings.ToUpper(method), item, op)
		}
	}
	sort.Slice(c.list, func(i, j int) bool { return c.list[i].id < c.list[j].id })
	for _, k := range c.kinds {
		c.describe(k)
	}
	return c
}

func (c *catalog) add(comp *compiler, path, method string, item *openapi3.PathItem, op *openapi3.Operation) {
	x := &operation{id: op.OperationID, method: method, path: path, paging: map[string]string{}, stored: map[string]storage{}, codes: map[int]basis{}}
	x.role, x.kind, x.coll = c.roleOf(path, method)
	x.clause, _ = op.Extensions["x-seed"].(string)
	for _, pr := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
		if pr.Value == nil {
			continue
		}
		x.params = append(x.params, pr.Value)
		if pg := pagingOf(pr.Value); pg != "" {
			x.paging[pg] = pr.Value.Name
		}
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		for _, media := range []string{"application/json", "multipart/form-data"} {
			if mt := op.RequestBody.Value.Content.Get(media); mt != nil && mt.Schema != nil {
				x.media, x.body = media, mt.Schema.Value
				break
			}
		}
	}
	if x.body != nil {
		for name, p := range x.body.Properties {
			if p.Value != nil {
				if it := p.Value.Items; it != nil && it.Value != nil && it.Value.Format == "binary" {
					x.files = name
				}
				x.stored[name] = storageOf(name, p.Value.Extensions)
				for _, e := range readEffects(p.Value.Extensions, "x-refuse", "") {
					x.refuses = append(x.refuses, fieldEffect{e, name})
				}
			}
		}
		for _, e := range readEffects(x.body.Extensions, "x-refuse", "") {
			x.refuses = append(x.refuses, fieldEffect{e, ""})
		}
	}
	for _, e := range readEffects(op.Extensions, "x-refuse", "") {
		x.refuses = append(x.refuses, fieldEffect{e, ""})
	}
	sort.SliceStable(x.refuses, func(i, j int) bool { return x.refuses[i].field < x.refuses[j].field })
	x.effects = readEffects(op.Extensions, "x-effect", "")
	if d, ok := op.Extensions["x-decision"].(map[string]any); ok && d["class"] == "decided" {
		row, _ := d["row"].(string)
		x.decided = basis{decision: row}
	}
	ptr := "/paths/" + escape(path) + "/" + strings.ToLower(method) + "/responses/"
	for code, r := range op.Responses.Map() {
		n, err := strconv.Atoi(code)
		if err != nil || r.Value == nil {
			continue
		}
		x.statuses = append(x.statuses, n)
		if n := r.Value.Extensions["x-negotiate"]; n != nil && code == "200" {
			m, _ := n.(map[string]any)
			x.negotiate = stringList(m["order"])
			row, _ := m["decision"].(string)
			x.negotiateBasis = basis{decision: row}
		}
		x.codes[n] = basis{clause: "7"}
		if d, ok := r.Value.Extensions["x-decision"].(map[string]any); ok && d["class"] == "decided" {
			row, _ := d["row"].(string)
			x.codes[n] = basis{decision: row}
		}
		rp := ptr + code
		if r.Ref != "" {
			rp = refPointer(r.Ref)
		}
		if mt := r.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
			sh := comp.compile(mt.Schema, rp+"/content/application~1json/schema")
			switch {
			case n/100 == 2:
				x.success = sh
			case x.failure == nil:
				x.failure = sh
			}
		}
		if mt := r.Value.Content.Get("text/event-stream"); mt != nil && n/100 == 2 {
			x.chunk = comp.component(mt.Extensions["x-event-schema"])
		}
	}
	sort.Ints(x.statuses)
	c.ops[x.id] = x
	c.list = append(c.list, x)
}

// roleOf places an operation among the resources.
func (c *catalog) roleOf(path, method string) (role, *kind, string) {
	for _, k := range c.kinds {
		switch {
		case path == k.collection && method == "POST":
			return roleCreate, k, ""
		case path == k.collection && method == "GET":
			return roleList, k, ""
		case path == k.item && method == "GET":
			return roleGet, k, ""
		case path == k.item && (method == "PUT" || method == "PATCH"):
			return roleUpdate, k, ""
		case path == k.item && method == "DELETE":
			return roleDelete, k, ""
		case strings.HasPrefix(path, k.item+"/") && method == "GET":
			return roleChild, k, strings.TrimPrefix(path, k.item+"/")
		case strings.HasPrefix(path, k.item+"/"):
			return roleAction, k, ""
		}
	}
	return roleOther, nil, ""
}

// describe fills what a kind's operations and record schema say of it.
func (c *catalog) describe(k *kind) {
	for _, op := range c.list {
		if op.kind != k {
			continue
		}
		switch op.role {
		case roleGet:
			k.record = dataOf(op.success)
		case roleCreate:
			if k.record == nil {
				k.record = dataOf(op.success)
			}
		case roleList:
			for _, p := range op.params {
				if p.In == openapi3.ParameterInQuery && p.Required && c.byParam[p.Name] != nil {
					k.scope = p.Name
				}
			}
		}
	}
	if k.record == nil {
		return
	}
	if f := k.identityField(); f != "" && k.record.props[f].typ == "integer" {
		k.numeric = true
	}
	colls := map[string]bool{}
	for _, name := range k.record.names {
		p := k.record.props[name]
		if p.machine != nil {
			k.machines[name] = p.machine
		}
		if p.mark == nil {
			continue
		}
		if p.mark.rule == "stored" && p.mark.str("unique") != "" {
			k.unique[name] = p.mark
		}
		if od := p.mark.str("on-delete"); od != "" && c.byParam[name] != nil {
			k.refs[name] = refField{kind: c.byParam[name], onDelete: od, basis: p.mark.onDecision()}
		}
		if of := p.mark.str("of"); of != "" && (p.mark.rule == "count" || p.mark.rule == "sum" || p.mark.rule == "last" || p.mark.rule == "collection") {
			colls[of] = true
		}
	}
	for _, op := range c.list {
		if op.kind == k && op.role == roleChild {
			colls[op.coll] = true
		}
	}
	for name := range colls {
		k.colls = append(k.colls, name)
	}
	sort.Strings(k.colls)
}

// dataOf is the shape of an envelope's data.
func dataOf(envelope *shape) *shape {
	if envelope == nil || envelope.props == nil {
		return nil
	}
	return envelope.props["data"]
}

// pagingOf reads a parameter's x-paging mark.
func pagingOf(p *openapi3.Parameter) string {
	if s, ok := p.Extensions["x-paging"].(string); ok {
		return s
	}
	return ""
}

// storageOf reads a request field's x-stored mark: kept under its own name
// by default, under another (as), not as sent (none), or by a decision.
func storageOf(name string, ext map[string]any) storage {
	field, decision, kept := spec.Stored(name, ext)
	if !kept {
		return storage{}
	}
	st := storage{field: field}
	if decision != "" {
		st.basis = basis{decision: decision}
	}
	return st
}

// param returns the operation's parameter named name in location in.
func (op *operation) param(in, name string) *openapi3.Parameter {
	for _, p := range op.params {
		if p.In == in && p.Name == name {
			return p
		}
	}
	return nil
}

// codeBasis is what answering with one of codes rests on: a decision when
// any of them is decided.
func (op *operation) codeBasis(codes ...int) basis {
	b := basis{clause: "7"}
	for _, c := range codes {
		if cb, ok := op.codes[c]; ok {
			b = b.weaker(cb)
		}
	}
	return b
}

// canonical is the id a server reads id as when it spells a real one
// another way (D-20): a number without its leading zeros, a UUID in lower
// case; id itself otherwise.
func (k *kind) canonical(id string) string {
	if k.numeric {
		t := strings.TrimLeft(id, "0")
		if t != id && t != "" && strings.Trim(t, "0123456789") == "" {
			return t
		}
		return id
	}
	if uuidForm.MatchString(id) {
		return strings.ToLower(id)
	}
	return id
}

var uuidForm = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// keeps is what remembering a value the server chose rests on: the
// decision the kind's identity mark names (D-34).
func (k *kind) keeps() basis {
	if f := k.identityField(); f != "" {
		return k.record.props[f].mark.onDecision()
	}
	return basis{}
}
