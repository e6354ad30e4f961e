package judge

import (
	"net/http"

	"contractkit/spec"
)

// Operation is the contract operation of a request — its operationId and
// its area (its tag: models, datasets, ...) — or ok=false when the request
// is outside the contract.
func Operation(method, path string) (id, area string, ok bool) {
	req, err := http.NewRequest(method, "http://contract.invalid"+path, nil)
	if err != nil {
		return "", "", false
	}
	op, _, _, found := spec.Declared().Find(req)
	if !found || op == nil {
		return "", "", false
	}
	area = "other"
	if len(op.Tags) > 0 {
		area = op.Tags[0]
	}
	return op.OperationID, area, true
}
