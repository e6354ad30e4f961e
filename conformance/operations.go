package conformance

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// The contract's operations as the checks name them: the seed clause
// of each, a title for check texts, and the operations that name a
// resource.

// opClauses maps each operation to its seed clause: §4.N.k is the k-th
// endpoint of section 4.N in the seed's order (see clauses.go).
var opClauses = map[string]string{
	"listModels": "4.1.1", "getModel": "4.1.2", "createModel": "4.1.3", "deleteModel": "4.1.4",
	"listConversations": "4.2.1", "createConversation": "4.2.2", "renameConversation": "4.2.3",
	"deleteConversation": "4.2.4", "listMessages": "4.2.5",
	"listDatasets": "4.3.1", "getDataset": "4.3.2", "createDataset": "4.3.3",
	"uploadDatasetFiles": "4.3.4", "deleteDataset": "4.3.5",
	"runInference":    "4.4.1",
	"listEvaluations": "4.5.1", "createEvaluation": "4.5.2", "getEvaluation": "4.5.3",
	"updateEvaluation": "4.5.4", "deleteEvaluation": "4.5.5", "checkEvaluationName": "4.5.6",
	"startEvaluation": "4.5.7", "runRagasEvaluation": "4.5.8",
}

// opTitle names an operation in check texts.
func opTitle(op spec.Operation) string {
	return fmt.Sprintf("%s %s (%s)", strings.ToUpper(op.Method), op.Path, op.ID)
}

// idOperations are the operations that name a resource: by a path id, or
// by an id in the body or query that must exist in the caller's account.
var idOperations = []string{
	"getModel", "deleteModel", "createModel",
	"listConversations", "createConversation", "renameConversation", "deleteConversation", "listMessages",
	"getDataset", "deleteDataset", "uploadDatasetFiles",
	"runInference",
	"createEvaluation", "getEvaluation", "updateEvaluation", "deleteEvaluation", "startEvaluation", "runRagasEvaluation",
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

// queryParam is the schema of the query parameter name of operation id.
func queryParam(id, name string) *openapi3.Schema {
	p := kinOperation(id).Parameters.GetByInAndName(openapi3.ParameterInQuery, name)
	if p == nil {
		panic(fmt.Sprintf("conformance: operation %s has no query parameter %s", id, name))
	}
	return p.Schema.Value
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
