package conformance

import (
	"testing"

	"contractkit/spec"
)

// The API paths the checks send to are the contract's: each is the path of
// the operation at its place.
func TestPathsAreTheContracts(t *testing.T) {
	c := spec.Strict()
	at := func(role spec.Role, param string) string {
		op, _ := c.OperationAt(role, param)
		return op.Path
	}
	for path, want := range map[string]string{
		pathModels:        at(spec.RoleList, "model_id"),
		pathDatasets:      at(spec.RoleList, "dataset_id"),
		pathConversations: at(spec.RoleList, "conversation_id"),
		pathEvaluations:   at(spec.RoleList, "evaluation_id"),
		pathUpload:        "/api/v1/user/dataset/upload",
		pathInference:     "/api/v1/user/inference",
		pathCheckName:     "/api/v1/evaluations/check-name",
	} {
		if path != want || path == "" {
			t.Errorf("a path of the checks is %q, want the contract's %q", path, want)
		}
	}
}
