package spec

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// What an operation is, read from the contract rather than from its name:
// the operation at a place (the list of conversations, the create of
// evaluations), the schema its success answer has (an operation that
// answers its resource's record), its x-effect marks, whether its body is
// a multipart form. The kit's per-operation behaviour is derived from
// these, so that an operation renamed in the contract, or one added where
// its place says what it does, needs no line of Go anywhere.

// OperationAt returns the operation of c with role on the resource whose id
// parameter is param (for RoleChild and RoleOther, the first in c's
// order); ok is false when there is none.
func (c *Contract) OperationAt(role Role, param string) (Operation, bool) {
	for _, op := range c.Operations {
		if r, res := c.Place(op); r == role && res != nil && res.Param == param {
			return op, true
		}
	}
	return Operation{}, false
}

// Answer returns the reference of the JSON schema of op's success answer
// (its lowest 2xx status), "#/components/schemas/DatasetEnvelope"; "" when
// the answer is not JSON or its schema is written inline.
func (c *Contract) Answer(op Operation) string {
	kin, err := c.KinOperation(op.ID)
	if err != nil {
		return ""
	}
	for _, code := range op.Statuses {
		if !strings.HasPrefix(code, "2") {
			continue
		}
		resp := kin.Responses.Value(code)
		if resp == nil || resp.Value == nil {
			return ""
		}
		if mt := resp.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
			return mt.Schema.Ref
		}
		return ""
	}
	return ""
}

// Record returns the reference of the schema in which the contract answers
// one record of r: the success answer of its read (RoleGet), or of its
// create when it has no read. "" when neither answers a named schema.
func (c *Contract) Record(r *Resource) string {
	for _, role := range []Role{RoleGet, RoleCreate} {
		if op, ok := c.OperationAt(role, r.Param); ok {
			if ref := c.Answer(op); ref != "" {
				return ref
			}
		}
	}
	return ""
}

// AnswersRecord reports whether op's success answer is one record of its
// own resource (a create, a read, an update, an action such as run-ragas
// that answers the record it changed).
func (c *Contract) AnswersRecord(op Operation) bool {
	_, r := c.Place(op)
	if r == nil {
		return false
	}
	rec := c.Record(r)
	return rec != "" && c.Answer(op) == rec
}

// Multipart reports whether op's request body is a multipart form.
func (c *Contract) Multipart(op Operation) bool {
	kin, err := c.KinOperation(op.ID)
	if err != nil || kin.RequestBody == nil || kin.RequestBody.Value == nil {
		return false
	}
	return kin.RequestBody.Value.Content.Get("multipart/form-data") != nil
}

// Streams reports whether op's success may be an event stream.
func (c *Contract) Streams(op Operation) bool {
	kin, err := c.KinOperation(op.ID)
	if err != nil {
		return false
	}
	for _, code := range op.Statuses {
		if resp := kin.Responses.Value(code); strings.HasPrefix(code, "2") && resp != nil && resp.Value != nil &&
			resp.Value.Content.Get("text/event-stream") != nil {
			return true
		}
	}
	return false
}

// EffectMark is the extension that names what an operation does beyond
// its answer, one entry per rule ("files": file parts join a record's
// files; "exchange": a question and its answer join a conversation;
// "state": a state field that must be in, or moves to, some states;
// "soft-delete"; "scores").
const EffectMark = "x-effect"

// Effect is one entry of an operation's x-effect mark.
type Effect struct {
	// Rule names what the entry does ("files", "exchange", "state").
	Rule string
	// Params are the entry's other keys, as decoded JSON.
	Params map[string]any
}

// Str is the string parameter key, "" when absent.
func (e Effect) Str(key string) string {
	s, _ := e.Params[key].(string)
	return s
}

// List is the list-of-strings parameter key.
func (e Effect) List(key string) []string { return stringList(e.Params[key]) }

// Effects lists the entries of op's x-effect mark, in the document's order.
func (c *Contract) Effects(op Operation) []Effect {
	kin, err := c.KinOperation(op.ID)
	if err != nil {
		return nil
	}
	var out []Effect
	add := func(v any) {
		if m, ok := v.(map[string]any); ok {
			rule, _ := m["rule"].(string)
			out = append(out, Effect{Rule: rule, Params: m})
		}
	}
	switch v := kin.Extensions[EffectMark].(type) {
	case []any:
		for _, e := range v {
			add(e)
		}
	default:
		add(v)
	}
	return out
}

// Paging returns op's query parameters that page its list, by what each
// does (their x-paging marks: "size", "offset", "page"), with their
// schemas; nil for an operation that pages nothing.
func (c *Contract) Paging(op Operation) map[string]*openapi3.Parameter {
	kin, err := c.KinOperation(op.ID)
	if err != nil {
		return nil
	}
	var out map[string]*openapi3.Parameter
	params := append(append(openapi3.Parameters{}, c.Kin.Paths.Value(op.Path).Parameters...), kin.Parameters...)
	for _, p := range params {
		if p.Value == nil || p.Value.In != openapi3.ParameterInQuery {
			continue
		}
		if what, ok := p.Value.Extensions["x-paging"].(string); ok {
			if out == nil {
				out = map[string]*openapi3.Parameter{}
			}
			out[what] = p.Value
		}
	}
	return out
}

// Paged lists the operations of c whose lists are paged (Paging), in c's
// order.
func (c *Contract) Paged() []Operation {
	var out []Operation
	for _, op := range c.Operations {
		if len(c.Paging(op)) > 0 {
			out = append(out, op)
		}
	}
	return out
}

// MultipartOperations lists the operations of c whose body is a multipart
// form, in c's order.
func (c *Contract) MultipartOperations() []Operation {
	var out []Operation
	for _, op := range c.Operations {
		if c.Multipart(op) {
			out = append(out, op)
		}
	}
	return out
}

// Suffix is the last segment of a child operation's path, under its
// resource's item ("messages", "start", "run-ragas"); "" for any other.
func (c *Contract) Suffix(op Operation) string {
	role, r := c.Place(op)
	if role != RoleChild {
		return ""
	}
	rest := strings.TrimPrefix(op.Path, r.Item+"/")
	segs := strings.Split(rest, "/")
	return segs[len(segs)-1]
}
