package mutation

import (
	"testing"

	"contractkit/spec"
)

// TestPathsAreTheContracts: every path the wrappers name is a path of the
// contract, so a renamed path cannot leave a mutant matching nothing.
func TestPathsAreTheContracts(t *testing.T) {
	known := map[string]bool{}
	for _, op := range spec.Strict().Operations {
		known[op.Path] = true
	}
	for _, p := range []string{pathModels, pathDatasets, pathDatasetUpload, pathConversations, pathInference, pathEvaluations} {
		if !known[p] {
			t.Errorf("%s is not a path of the contract", p)
		}
	}
}
