package mockserver

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/mockserver/store"
	"contractkit/spec"
)

// requestDefaults are the values the contract states (schema `default`) for
// what a request leaves out: page sizes and the fields a create may omit.
// New reads them from the contract once, so the handlers never retype a
// number the contract already says, and a contract that stops stating one
// stops the mock at start-up. Each is found by its place, not by an
// operation's name: the paging of every list the contract pages (its
// x-paging marks), the fields of the create of a resource.
type requestDefaults struct {
	// paging holds, for each paged list by operationId, its paging
	// parameters by what each does ("size", "offset", "page": the
	// x-paging mark) with their defaults: the evaluations' page and
	// per_page (D-05), the conversations' and messages' limit and offset
	// (D-06).
	paging map[string]map[string]pageParam
	// newEvaluation: the create of evaluations' type, benchmark_type,
	// question_count and description (D-09); the name and model are the
	// caller's.
	newEvaluation store.EvaluationInput
	// newConversationTitle: the create of conversations' title (D-09).
	newConversationTitle string
}

// pageParam is one paging parameter of a list: its query name and the
// contract's default.
type pageParam struct {
	name string
	def  int
}

// paging is the paging c's request asks for, by what each parameter does
// ("size", "offset", "page"): the query's number, else the contract's
// default. A list the contract does not page has none.
func (s *Server) paging(c *call) map[string]int {
	out := map[string]int{}
	for what, p := range s.defaults.paging[c.op.OperationID] {
		out[what] = c.queryInt(p.name, p.def)
	}
	return out
}

// readDefaults reads every default the handlers use from c.
func readDefaults(c *spec.Contract) (requestDefaults, error) {
	r := defaultReader{c: c}
	d := requestDefaults{paging: map[string]map[string]pageParam{}}
	for _, op := range c.Paged() {
		params := c.Paging(op)
		d.paging[op.ID] = map[string]pageParam{}
		for _, what := range slices.Sorted(maps.Keys(params)) {
			p := params[what]
			d.paging[op.ID][what] = pageParam{p.Name, r.query(op.ID, p)}
		}
	}
	evaluations := r.create("evaluation_id")
	d.newEvaluation = store.EvaluationInput{
		Type:          r.bodyString(evaluations, "type"),
		BenchmarkType: r.bodyString(evaluations, "benchmark_type"),
		QuestionCount: r.bodyInt(evaluations, "question_count"),
		Description:   r.bodyString(evaluations, "description"),
	}
	d.newConversationTitle = r.bodyString(r.create("conversation_id"), "title")
	return d, r.err
}

// createOf is the operationId of the create of the resource of id
// parameter param in c: the POST on its collection.
func createOf(c *spec.Contract, param string) (string, error) {
	op, ok := c.OperationAt(spec.RoleCreate, param)
	if !ok {
		return "", fmt.Errorf("the contract has no create of the resource %s", param)
	}
	return op.ID, nil
}

// defaultReader looks defaults up and keeps the first failure.
type defaultReader struct {
	c   *spec.Contract
	err error
}

func (r *defaultReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("contract defaults: "+format, args...)
	}
}

// create is the operationId of the create of the resource of id parameter
// param ("" after a failure).
func (r *defaultReader) create(param string) string {
	id, err := createOf(r.c, param)
	if err != nil {
		r.fail("%v", err)
	}
	return id
}

// query is the default of the query parameter p of operation opID, a whole
// number.
func (r *defaultReader) query(opID string, p *openapi3.Parameter) int {
	if p.Schema == nil || p.Schema.Value == nil || p.Schema.Value.Default == nil {
		r.fail("%s: query parameter %s states no default", opID, p.Name)
		return 0
	}
	return r.integer(p.Schema.Value.Default, opID, p.Name)
}

// body is the default of the property name of operation opID's JSON body.
func (r *defaultReader) body(opID, name string) any {
	if opID == "" {
		return nil // already failed
	}
	op, err := r.c.KinOperation(opID)
	if err != nil {
		r.fail("%v", err)
		return nil
	}
	var prop *openapi3.SchemaRef
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
			prop = mt.Schema.Value.Properties[name]
		}
	}
	if prop == nil || prop.Value == nil || prop.Value.Default == nil {
		r.fail("%s: body property %s states no default", opID, name)
		return nil
	}
	return prop.Value.Default
}

func (r *defaultReader) bodyInt(opID, name string) int {
	return r.integer(r.body(opID, name), opID, name)
}

func (r *defaultReader) bodyString(opID, name string) string {
	v := r.body(opID, name)
	s, ok := v.(string)
	if !ok && v != nil {
		r.fail("%s: the default of %s is %v, not a string", opID, name, v)
	}
	return s
}

// integer reads a JSON number that is a whole int.
func (r *defaultReader) integer(v any, opID, name string) int {
	switch n := v.(type) {
	case nil:
		return 0 // already failed
	case int:
		return n
	case float64:
		if n == math.Trunc(n) && math.Abs(n) <= math.MaxInt32 {
			return int(n)
		}
	}
	r.fail("%s: the default of %s is %v, not an integer", opID, name, v)
	return 0
}
