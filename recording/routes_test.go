package recording

import (
	"slices"
	"strings"
	"testing"

	"contractkit/spec"
)

// TestRouteFollowsTheContract: the contract's router picks the operation,
// the path parameter is the id (decoded, as the path was), a base path
// before /api/v1/ is the target's, and what the recorder leaves out
// (check-name, unknown paths, other methods) is not routed. What each
// exchange does is derived from the operation's place and its x-effect
// marks.
func TestRouteFollowsTheContract(t *testing.T) {
	cases := []struct {
		method, path string
		does         []string
		id           string
		readByID     bool
	}{
		{"POST", "/api/v1/user/dataset", []string{"dataset create", "files into dataset_id"}, "", false},
		{"GET", "/api/v1/user/dataset/12", []string{"dataset read"}, "12", true},
		{"GET", "/base/api/v1/user/dataset/12", []string{"dataset read"}, "12", true},
		{"DELETE", "/api/v1/user/dataset/12", []string{"dataset delete"}, "12", false},
		{"POST", "/api/v1/user/dataset/upload", []string{"files into dataset_id"}, "", false},
		{"GET", "/api/v1/user/conversations/c 1/messages", []string{"conversation messages"}, "c 1", true},
		{"PATCH", "/api/v1/user/conversations/a%2Fb", []string{"conversation read"}, "a%2Fb", false},
		{"POST", "/api/v1/user/inference", []string{"exchange into conversation_id"}, "", false},
		{"POST", "/api/v1/evaluations/4/start", []string{"evaluation status running"}, "4", false},
		{"POST", "/api/v1/evaluations/4/run-ragas", []string{"evaluation read"}, "4", false},
		{"GET", "/api/v1/evaluations", []string{"evaluation list"}, "", false},
		{"GET", "/api/v1/evaluations/check-name", nil, "", false},
		{"GET", "/api/v1/evaluations/4/start", nil, "", false},
		{"GET", "/api/v1/user/model/4/extra", nil, "", false},
		{"GET", "/user/model", nil, "", false},
	}
	for _, tc := range cases {
		op, ok := route(tc.method, tc.path)
		if ok != (tc.does != nil) {
			t.Errorf("%s %s: routed %v, want %v", tc.method, tc.path, ok, tc.does != nil)
			continue
		}
		if !ok {
			continue
		}
		if !slices.Equal(op.does, tc.does) || op.id != tc.id || op.readByID != tc.readByID {
			t.Errorf("%s %s: does %v, id %q, read by id %v; want %v, %q, %v", tc.method, tc.path, op.does, op.id, op.readByID, tc.does, tc.id, tc.readByID)
		}
	}
}

// TestEveryOperationIsDerived: the embedded contract's every operation is
// derived or exempt with its reason; only check-name is exempt.
func TestEveryOperationIsDerived(t *testing.T) {
	_, _, entries := RouteTable(spec.Strict())
	for _, op := range spec.Strict().Operations {
		why, ok := entries[op.ID]
		switch {
		case !ok:
			t.Errorf("%s (%s %s): derived to nothing the recorder keeps", op.ID, op.Method, op.Path)
		case why != "" && op.Path != "/api/v1/evaluations/check-name":
			t.Errorf("%s: exempt (%s)", op.ID, why)
		}
	}
}

// TestAnOperationAddedIsDerivedOrNamed: an update of a dataset added to a
// copy of the contract is recorded as a read of the dataset it answers; an
// action whose answer and marks reach nothing the recorder keeps is not
// derived, for the operation index to name.
func TestAnOperationAddedIsDerivedOrNamed(t *testing.T) {
	anchor := "  /api/v1/user/dataset/{dataset_id}:\n    parameters:\n      - $ref: '#/components/parameters/DatasetId'\n"
	patch := `    patch:
      operationId: patchDataset
      x-seed: '4.3.2'
      tags: [datasets]
      summary: Rename a dataset
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties: { dataset_name: { type: string } }
            examples:
              rename: { value: { dataset_name: Handbook 2026 } }
      responses:
        '200':
          description: The renamed dataset.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/DatasetEnvelope' }
              examples:
                renamed: { $ref: '#/components/examples/Dataset' }
    post:
      operationId: archiveDataset
      x-seed: '4.3.2'
      tags: [datasets]
      summary: Archive a dataset
      responses:
        '200':
          description: Archived.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/DeleteEnvelope' }
              examples:
                archived: { value: { status: success, data: { message: archived, id: '1' } } }
`
	raw := strings.Replace(string(spec.Document), anchor, anchor+patch, 1)
	c, err := spec.Build([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	op, _ := c.Operation("patchDataset")
	if got, _, ok := derive(c, op); !ok || !slices.Equal(got.does, []string{"dataset read"}) {
		t.Errorf("patchDataset: derived %v (%v), want a read of the dataset", got.does, ok)
	}
	op, _ = c.Operation("archiveDataset")
	if got, why, ok := derive(c, op); ok || why != "" {
		t.Errorf("archiveDataset: derived %v (exempt %q), want nothing", got.does, why)
	}
	_, _, entries := RouteTable(c)
	if _, ok := entries["archiveDataset"]; ok {
		t.Error("RouteTable has an entry for archiveDataset")
	}
}
