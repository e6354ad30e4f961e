package mockserver

import (
	"fmt"
	"math"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/mockserver/store"
)

// requestDefaults are the values the contract states (schema `default`) for
// what a request leaves out: page sizes and the fields a create may omit.
// New reads them from the loaded document once, so the handlers never
// retype a number the contract already says, and a contract that stops
// stating one stops the mock at start-up.
type requestDefaults struct {
	// listEvaluations: page and per_page (D-05).
	evaluations struct{ page, perPage int }
	// listConversations and listMessages: limit and offset (D-06).
	conversations, messages struct{ limit, offset int }
	// createEvaluation: type, benchmark_type, question_count and
	// description (D-09); the name and model are the caller's.
	newEvaluation store.EvaluationInput
	// createConversation: title (D-09).
	newConversationTitle string
}

// readDefaults reads every default the handlers use from doc.
func readDefaults(doc *openapi3.T) (requestDefaults, error) {
	r := defaultReader{doc: doc}
	var d requestDefaults
	d.evaluations.page = r.queryInt("listEvaluations", "page")
	d.evaluations.perPage = r.queryInt("listEvaluations", "per_page")
	d.conversations.limit = r.queryInt("listConversations", "limit")
	d.conversations.offset = r.queryInt("listConversations", "offset")
	d.messages.limit = r.queryInt("listMessages", "limit")
	d.messages.offset = r.queryInt("listMessages", "offset")
	d.newEvaluation = store.EvaluationInput{
		Type:          r.bodyString("createEvaluation", "type"),
		BenchmarkType: r.bodyString("createEvaluation", "benchmark_type"),
		QuestionCount: r.bodyInt("createEvaluation", "question_count"),
		Description:   r.bodyString("createEvaluation", "description"),
	}
	d.newConversationTitle = r.bodyString("createConversation", "title")
	return d, r.err
}

// defaultReader looks defaults up and keeps the first failure.
type defaultReader struct {
	doc *openapi3.T
	err error
}

func (r *defaultReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("contract defaults: "+format, args...)
	}
}

func (r *defaultReader) operation(id string) *openapi3.Operation {
	for _, item := range r.doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.OperationID == id {
				return op
			}
		}
	}
	r.fail("no operation %s", id)
	return nil
}

// query is the default of the query parameter name of operation opID.
func (r *defaultReader) query(opID, name string) any {
	op := r.operation(opID)
	if op == nil {
		return nil
	}
	p := op.Parameters.GetByInAndName(openapi3.ParameterInQuery, name)
	if p == nil || p.Schema == nil || p.Schema.Value == nil || p.Schema.Value.Default == nil {
		r.fail("%s: query parameter %s states no default", opID, name)
		return nil
	}
	return p.Schema.Value.Default
}

// body is the default of the property name of operation opID's JSON body.
func (r *defaultReader) body(opID, name string) any {
	op := r.operation(opID)
	if op == nil {
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

func (r *defaultReader) queryInt(opID, name string) int {
	return r.integer(r.query(opID, name), opID, name)
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
