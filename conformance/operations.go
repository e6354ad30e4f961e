package conformance

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// The contract's operations as the checks name them: the seed clause of
// each, a title for check texts, the operations that name a resource and
// those a valid key reads with nothing made first. Each is read from the
// contract, never listed here.

// opClause is the seed clause of operation id: its x-seed mark in the
// contract ("4.1.3", the third endpoint of §4.1), "" without one.
func opClause(id string) string {
	op, _ := spec.Strict().Operation(id)
	return op.Clause
}

// opTitle names an operation in check texts.
func opTitle(op spec.Operation) string {
	return fmt.Sprintf("%s %s (%s)", strings.ToUpper(op.Method), op.Path, op.ID)
}

// idOperations are the operations of c that name a resource: by a path
// id, or by a required body field or query parameter named like a
// resource's id parameter (spec.References), in c's order.
func idOperations(c *spec.Contract) []spec.Operation {
	var out []spec.Operation
	for _, op := range c.Operations {
		for _, ref := range c.References(op) {
			if ref.Required {
				out = append(out, op)
				break
			}
		}
	}
	return out
}

// freeReads are the operations of c that a valid key can call with
// nothing made first: the GETs that name no resource.
func freeReads(c *spec.Contract) []spec.Operation {
	var out []spec.Operation
	for _, op := range c.Operations {
		if strings.EqualFold(op.Method, "GET") && len(c.References(op)) == 0 {
			out = append(out, op)
		}
	}
	return out
}

// Values the contract states, read from it where a check needs them (a
// bound, an enum), so the checks follow the contract rather than restate
// it. Each panics when the contract lacks the element: a renamed field
// fails the suite's registration, not silently a check.

// kinOperation is the operation id of the contract as written.
func kinOperation(id string) *openapi3.Operation {
	op, ok := spec.Strict().Operation(id)
	if !ok {
		panic("conformance: no operation " + id)
	}
	return spec.Strict().Kin.Paths.Value(op.Path).GetOperation(op.Method)
}

// placed is the id of the operation with role on the resource of id
// parameter param (spec.OperationAt).
func placed(role spec.Role, param string) string {
	op, ok := spec.Strict().OperationAt(role, param)
	if !ok {
		panic(fmt.Sprintf("conformance: the contract has no operation of role %d on %s", role, param))
	}
	return op.ID
}

// paging is the paging parameters of the operation with role on the
// resource of id parameter param, by what each does (x-paging: "size",
// "offset", "page"); each of want must be there.
func paging(role spec.Role, param string, want ...string) map[string]*openapi3.Parameter {
	op, _ := spec.Strict().Operation(placed(role, param))
	p := spec.Strict().Paging(op)
	for _, what := range want {
		if p[what] == nil || p[what].Schema == nil || p[what].Schema.Value == nil {
			panic("conformance: " + op.ID + " has no x-paging " + what + " parameter")
		}
	}
	return p
}

// bodyField is the schema of field in the request body of operation id
// sent as media.
func bodyField(id, media, field string) *openapi3.Schema {
	op := kinOperation(id)
	if op.RequestBody == nil || op.RequestBody.Value.Content.Get(media) == nil {
		panic(fmt.Sprintf("conformance: operation %s takes no %s body", id, media))
	}
	p := op.RequestBody.Value.Content.Get(media).Schema.Value.Properties[field]
	if p == nil {
		panic(fmt.Sprintf("conformance: the %s body of %s has no field %s", media, id, field))
	}
	return p.Value
}

// schemaEnum is the enum of a schema: a component schema's own, or, with a
// property, that property's.
func schemaEnum(component string, property ...string) []string {
	ref := spec.Strict().Kin.Components.Schemas[component]
	if ref == nil {
		panic("conformance: no component schema " + component)
	}
	s := ref.Value
	for _, p := range property {
		if s.Properties[p] == nil {
			panic(fmt.Sprintf("conformance: schema %s has no property %s", component, p))
		}
		s = s.Properties[p].Value
	}
	return enumOf(s)
}

// enumOf is the enum of s, as strings.
func enumOf(s *openapi3.Schema) []string {
	out := make([]string, 0, len(s.Enum))
	for _, v := range s.Enum {
		out = append(out, fmt.Sprint(v))
	}
	if len(out) == 0 {
		panic("conformance: a schema the checks read has no enum")
	}
	return out
}
