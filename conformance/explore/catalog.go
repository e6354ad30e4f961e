package explore

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// The explore phase's map of the contract: which paths are resources, what
// each operation does to them, which request fields name another resource,
// where a request field is stored, which parameters page a list and which
// states a resource moves through. Everything here is read from
// spec/openapi.yaml (its paths, schemas and x- marks), so a new operation or
// field is explored without new suite code.

// resourceKind is a resource of the contract (spec.Resource: a collection
// path whose items have a path of their own, collection/{param}) with what
// the explore phase reads of it.
type resourceKind struct {
	collection string // "/api/v1/user/model"
	param      string // "model_id", the item path's parameter
	item       string // "/api/v1/user/model/{model_id}"
	// schema is the item schema: the data of its get (or create) answer.
	schema *openapi3.Schema
	// gone is "" when the seed states that a deleted item is gone (404, in
	// no list), else the decision that says so (a decided x-decision mark
	// on the delete operation: D-07 for the soft-deleted datasets).
	gone string
	// states is the status machine of the items, nil without one.
	states *transitions
	// scope is the query parameter that restricts the list to one parent
	// ("model_id" for conversations), "" when the list is not scoped.
	scope string
}

// opRole is what an operation does to its resource (spec.Place).
type opRole = spec.Role

const (
	roleCreate = spec.RoleCreate // POST collection
	roleList   = spec.RoleList   // GET collection
	roleGet    = spec.RoleGet    // GET item
	roleUpdate = spec.RoleUpdate // PUT or PATCH item
	roleDelete = spec.RoleDelete // DELETE item
	roleChild  = spec.RoleChild  // any method on item/suffix (start, run-ragas, messages)
	roleOther  = spec.RoleOther  // under no resource (inference, upload, check-name)
)

// exploreOp is one operation as the explore phase drives it.
type exploreOp struct {
	spec.Operation
	role opRole
	kind *resourceKind // nil for roleOther
	// body is the request body schema as written (values are generated
	// within its limits), declBody the same under spec.Declared() (what
	// an invalid request must break); media is its content type.
	body, declBody *openapi3.Schema
	media          string
	// query are the operation's query parameters; paging marks those that
	// page a list ("size", "offset", "page" from x-paging).
	query  []*openapi3.Parameter
	paging map[string]string
	// answer is the data schema of the 200 JSON answer, nil without one.
	answer *openapi3.Schema
	// stream reports a 200 text/event-stream answer.
	stream bool
}

// catalog is the explore phase's map of the whole contract.
type catalog struct {
	contract *spec.Contract // the contract as written
	kinds    []*resourceKind
	ops      []*exploreOp
	// byParam finds the resource a field names: "model_id" → models.
	byParam map[string]*resourceKind
}

// newCatalog reads the contract: strict is the document as written,
// declared its declared view (the same operations and paths).
func newCatalog(strict, declared *spec.Contract) *catalog {
	c := &catalog{contract: strict, byParam: map[string]*resourceKind{}}
	paths := strict.Kin.Paths.Map()
	for _, r := range strict.Resources() {
		k := &resourceKind{collection: r.Collection, param: r.Param, item: r.Item}
		c.kinds = append(c.kinds, k)
		c.byParam[k.param] = k
	}
	for _, op := range strict.Operations {
		kin := paths[op.Path].GetOperation(strings.ToUpper(op.Method))
		decl := declared.Kin.Paths.Value(op.Path).GetOperation(strings.ToUpper(op.Method))
		x := &exploreOp{Operation: op, paging: map[string]string{}}
		x.role, x.kind = c.roleOf(op)
		x.media, x.body = requestSchema(kin)
		_, x.declBody = requestSchema(decl)
		for _, pr := range append(append(openapi3.Parameters{}, paths[op.Path].Parameters...), kin.Parameters...) {
			if pr.Value == nil || pr.Value.In != openapi3.ParameterInQuery {
				continue
			}
			x.query = append(x.query, pr.Value)
			if pg := pagingOf(pr.Value); pg != "" {
				x.paging[pr.Value.Name] = pg
			}
		}
		x.answer, x.stream = answerSchema(kin)
		c.ops = append(c.ops, x)
	}
	for _, k := range c.kinds {
		c.describe(k)
	}
	return c
}

// namedBy lists the kinds op names in a required field or parameter
// (spec.References).
func (c *catalog) namedBy(op *exploreOp) []*resourceKind {
	var out []*resourceKind
	for _, ref := range c.contract.References(op.Operation) {
		if k := c.byParam[ref.Name]; k != nil && ref.In != spec.InPath && ref.Required && k != op.kind {
			out = append(out, k)
		}
	}
	return out
}

// needs is k with every kind its creation needs, transitively: what a
// sequence focused on k works with.
func (c *catalog) needs(k *resourceKind) map[*resourceKind]bool {
	out := map[*resourceKind]bool{}
	var add func(*resourceKind)
	add = func(k *resourceKind) {
		if out[k] {
			return
		}
		out[k] = true
		if create := c.opOf(k, roleCreate); create != nil {
			for _, n := range c.namedBy(create) {
				add(n)
			}
		}
	}
	add(k)
	return out
}

// opOf returns the operation of role on kind, or nil.
func (c *catalog) opOf(k *resourceKind, role opRole) *exploreOp {
	for _, op := range c.ops {
		if op.kind == k && op.role == role {
			return op
		}
	}
	return nil
}

// roleOf places op among the resources (spec.Place).
func (c *catalog) roleOf(op spec.Operation) (opRole, *resourceKind) {
	role, r := c.contract.Place(op)
	if r == nil {
		return role, nil
	}
	return role, c.byParam[r.Param]
}

// describe fills what a kind's operations say of it: its item schema, the
// scope of its list, whether deletion is declared, its states.
func (c *catalog) describe(k *resourceKind) {
	for _, op := range c.ops {
		if op.kind != k {
			continue
		}
		switch op.role {
		case roleGet:
			k.schema = op.answer
		case roleCreate:
			if k.schema == nil {
				k.schema = op.answer
			}
		case roleList:
			for _, p := range op.query {
				if p.Required && c.byParam[p.Name] != nil {
					k.scope = p.Name
				}
			}
		case roleDelete:
			if d, _ := decisionMark(op.kinOp().Extensions); d != "" {
				k.gone = d
			}
		}
	}
	if k.schema != nil && k.schema.Properties["status"] != nil {
		k.states = transitionsOf(k.schema.Properties["status"].Value)
	}
}

// kinOp is the operation as written.
func (x *exploreOp) kinOp() *openapi3.Operation {
	return spec.Strict().Kin.Paths.Value(x.Path).GetOperation(strings.ToUpper(x.Method))
}

// requestSchema is the body schema of op and its media type.
func requestSchema(op *openapi3.Operation) (string, *openapi3.Schema) {
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return "", nil
	}
	for _, media := range []string{"application/json", "multipart/form-data"} {
		if mt := op.RequestBody.Value.Content.Get(media); mt != nil && mt.Schema != nil {
			return media, mt.Schema.Value
		}
	}
	return "", nil
}

// answerSchema is the data schema of op's 200 JSON answer, and whether
// the 200 answer may be an event stream.
func answerSchema(op *openapi3.Operation) (*openapi3.Schema, bool) {
	r := op.Responses.Status(200)
	if r == nil || r.Value == nil {
		return nil, false
	}
	stream := r.Value.Content.Get("text/event-stream") != nil
	mt := r.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil, stream
	}
	data := mt.Schema.Value.Properties["data"]
	if data == nil {
		return nil, stream
	}
	return data.Value, stream
}

// decisionMark reads an x-decision mark: its row (when decided) and class.
func decisionMark(ext map[string]any) (id, class string) {
	d, _ := spec.Mark(ext)
	if d.Class != "decided" {
		return "", d.Class
	}
	return d.Row, d.Class
}

// pagingOf reads a parameter's x-paging mark ("size", "offset", "page").
func pagingOf(p *openapi3.Parameter) string {
	if s, ok := p.Extensions["x-paging"].(string); ok {
		return s
	}
	if p.Schema != nil && p.Schema.Value != nil {
		if s, ok := p.Schema.Value.Extensions["x-paging"].(string); ok {
			return s
		}
	}
	return ""
}

// storage is where a request field is kept, from its x-stored mark: under
// the same name by default, under another (as), not at all (none), or kept
// by a decision rather than a rule of the seed (decided).
type storage struct {
	field    string // "" when the field is not stored
	decision string // "" declared
}

func storageOf(name string, s *openapi3.Schema) storage {
	field, decision, kept := spec.Stored(name, s.Extensions)
	if !kept {
		return storage{}
	}
	return storage{field: field, decision: decision}
}

// transitions is a status machine from an x-transitions mark.
type transitions struct {
	decision string
	// initialSeed is set when the status field states the seed's clause
	// (x-seed): a wrong initial state breaks the seed, not a decision.
	initialSeed bool
	initial     map[string]bool
	moves       map[string][]string
}

func transitionsOf(s *openapi3.Schema) *transitions {
	m, ok := s.Extensions["x-transitions"].(map[string]any)
	if !ok {
		return nil
	}
	t := &transitions{initial: map[string]bool{}, moves: map[string][]string{}}
	t.decision, _ = m["decision"].(string)
	_, t.initialSeed = s.Extensions["x-seed"]
	for _, v := range asList(m["initial"]) {
		t.initial[v] = true
	}
	if mv, ok := m["moves"].(map[string]any); ok {
		for from, to := range mv {
			t.moves[from] = asList(to)
		}
	}
	return t
}

func asList(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// reachable reports whether a resource seen in state from may later be
// seen in state to: the same state, or a state the moves lead to.
func (t *transitions) reachable(from, to string) bool {
	if from == to {
		return true
	}
	seen := map[string]bool{from: true}
	queue := []string{from}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, n := range t.moves[s] {
			if n == to {
				return true
			}
			if !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	return false
}

// known reports whether the machine names state at all.
func (t *transitions) known(state string) bool {
	if t.initial[state] {
		return true
	}
	for from, to := range t.moves {
		if from == state {
			return true
		}
		for _, s := range to {
			if s == state {
				return true
			}
		}
	}
	return false
}

// addition reports whether a property or parameter is an addition of this
// contract, not the seed's (a decided mark that relaxes it whole): the
// explore phase does not send it, since a server may not know it.
func addition(ext map[string]any) bool {
	d, _ := spec.Mark(ext)
	return d.Class == "decided" && slices.Contains(d.Relax, "*")
}

// paramDecided reports whether a parameter is ours (a decided mark on the
// parameter itself): the explore phase sends it only to page lists.
func paramDecided(p *openapi3.Parameter) bool {
	_, class := decisionMark(p.Extensions)
	return class == "decided"
}
