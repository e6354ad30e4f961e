package recording

import (
	"reflect"
	"testing"
)

// TestRouteFollowsTheContract: the contract's router picks the operation,
// the path parameter is the id (decoded, as the path was), a base path
// before /api/v1/ is the target's, and what the recorder leaves out
// (check-name, unknown paths, other methods) is not routed.
func TestRouteFollowsTheContract(t *testing.T) {
	fn := func(f func(*account, Exchange, request) string) uintptr { return reflect.ValueOf(f).Pointer() }
	cases := []struct {
		method, path string
		apply        func(*account, Exchange, request) string
		id           string
		readByID     bool
	}{
		{"POST", "/api/v1/user/dataset", createDataset, "", false},
		{"GET", "/api/v1/user/dataset/12", readDataset, "12", true},
		{"GET", "/base/api/v1/user/dataset/12", readDataset, "12", true},
		{"DELETE", "/api/v1/user/dataset/12", deleteDataset, "12", false},
		{"POST", "/api/v1/user/dataset/upload", uploadFiles, "", false},
		{"GET", "/api/v1/user/conversations/c 1/messages", readMessages, "c 1", true},
		{"PATCH", "/api/v1/user/conversations/a%2Fb", readConversation, "a%2Fb", false},
		{"POST", "/api/v1/evaluations/4/start", startEvaluation, "4", false},
		{"POST", "/api/v1/evaluations/4/run-ragas", readEvaluation, "4", false},
		{"GET", "/api/v1/evaluations/check-name", nil, "", false},
		{"GET", "/api/v1/evaluations/4/start", nil, "", false},
		{"GET", "/api/v1/user/model/4/extra", nil, "", false},
		{"GET", "/user/model", nil, "", false},
	}
	for _, tc := range cases {
		op, ok := route(tc.method, tc.path)
		if ok != (tc.apply != nil) {
			t.Errorf("%s %s: routed %v, want %v", tc.method, tc.path, ok, tc.apply != nil)
			continue
		}
		if !ok {
			continue
		}
		if fn(op.apply) != fn(tc.apply) || op.id != tc.id || op.readByID != tc.readByID {
			t.Errorf("%s %s: id %q, read by id %v, or the wrong handler; want id %q, read by id %v", tc.method, tc.path, op.id, op.readByID, tc.id, tc.readByID)
		}
	}
}
