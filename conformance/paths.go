package conformance

import (
	"net/url"
	"strings"

	"contractkit/spec"
)

// The operations the written checks name because what they check is the
// operation's own — the inference's temperature range and stream, the
// upload's file count, the name check's rules — one constant each, in this
// one place: the operation index (internal/opindex, through NamedOperations) holds them
// to the contract, so a renamed or removed operation fails one test. Every
// other operation a check reaches, it reaches by its place (the list of
// models, the create of evaluations: spec.OperationAt).
const (
	opInference = "runInference"
	opUpload    = "uploadDatasetFiles"
	opCheckName = "checkEvaluationName"
)

// namedOperations are the constants above, for the index.
var namedOperations = []string{opInference, opUpload, opCheckName}

// API paths (seed §4), the contract's: a resource's collection, or the
// path of a named operation.
var (
	pathModels        = collection("model_id")
	pathDatasets      = collection("dataset_id")
	pathConversations = collection("conversation_id")
	pathEvaluations   = collection("evaluation_id")
	pathUpload        = pathOf(opUpload)
	pathInference     = pathOf(opInference)
	pathCheckName     = pathOf(opCheckName)
)

// collection is the collection path of the resource of id parameter param.
func collection(param string) string {
	r := spec.Strict().ResourceNamed(param)
	if r == nil {
		panic("conformance: the contract has no resource " + param)
	}
	return r.Collection
}

// pathOf is the path of operation id.
func pathOf(id string) string {
	op, ok := spec.Strict().Operation(id)
	if !ok {
		panic("conformance: the contract has no operation " + id)
	}
	return op.Path
}

// at joins a collection path and an id.
func at(collection, id string, rest ...string) string {
	return collection + "/" + url.PathEscape(id) + strings.Join(rest, "")
}
