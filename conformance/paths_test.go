package conformance

import (
	"testing"

	"contractkit/spec"
)

// The API paths the checks send to are the contract's: each is the path of
// the operation named here.
func TestPathsAreTheContracts(t *testing.T) {
	for path, id := range map[string]string{
		pathModels:        "listModels",
		pathDatasets:      "listDatasets",
		pathUpload:        "uploadDatasetFiles",
		pathConversations: "listConversations",
		pathInference:     "runInference",
		pathEvaluations:   "listEvaluations",
		pathCheckName:     "checkEvaluationName",
	} {
		op, ok := spec.Strict().Operation(id)
		if !ok || op.Path != path {
			t.Errorf("%s: the contract's %s is at %q", path, id, op.Path)
		}
	}
}
