package mockserver

import (
	"fmt"
	"testing"

	"contractkit/mockserver/store"
)

// A string model_id on conversation creation is rewritten into the declared
// integer before validation (D-21); a value that is no integer still fails.
func TestNormalizeConversationModelID(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	c := ts.client(t, testKey1)
	m := c.readyModel("chat", fixtureFile(t, "employee-handbook.md"))
	var conv store.ConversationView
	c.post("/api/v1/user/conversations", map[string]any{"model_id": fmt.Sprint(m.ID), "title": "string id"}).want(t, 200).data(t, &conv)
	if conv.ModelID != m.ID {
		t.Errorf("model_id got %d, want %d", conv.ModelID, m.ID)
	}
	c.post("/api/v1/user/conversations", map[string]any{"model_id": "seven"}).wantError(t, 422, "model_id")
}

func TestFormNameRewritesOnlyTheTablesNames(t *testing.T) {
	for _, tc := range []struct{ op, in, want string }{
		{"createDataset", "name", "dataset_name"}, {"createDataset", "file", "files"},
		{"uploadDatasetFiles", "file", "files"}, {"uploadDatasetFiles", "name", "name"},
		{"createDataset", "dataset_name", "dataset_name"},
	} {
		if got := formName(tc.op, tc.in); got != tc.want {
			t.Errorf("formName(%s, %s) = %s, want %s", tc.op, tc.in, got, tc.want)
		}
	}
}
