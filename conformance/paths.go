package conformance

import (
	"net/url"
	"strings"

	"contractkit/spec"
)

// API paths (seed §4), the contract's: a resource's collection, or the
// path of an operation the written checks name because what they check is
// that operation's own — the inference's temperature range and stream, the
// upload's file count, the name check's rules — through its generated
// constant (spec.Op…: a renamed or removed operation breaks the build).
// Every other operation a check reaches, it reaches by its place (the list
// of models, the create of evaluations: spec.OperationAt).
var (
	pathModels        = collection("model_id")
	pathDatasets      = collection("dataset_id")
	pathConversations = collection("conversation_id")
	pathEvaluations   = collection("evaluation_id")
	pathUpload        = pathOf(spec.OpUploadDatasetFiles)
	pathInference     = pathOf(spec.OpRunInference)
	pathCheckName     = pathOf(spec.OpCheckEvaluationName)
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
