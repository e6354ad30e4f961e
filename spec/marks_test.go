package spec

import (
	"os"
	"regexp"
	"testing"
)

// Every lenient reading names a field of its operation's body and a row of
// DECISIONS.md, and the document holds the ones D-21 lists.
func TestReadingsAreTheDocuments(t *testing.T) {
	rows, err := os.ReadFile("DECISIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	var all []Reading
	for _, op := range Strict().Operations {
		for _, r := range Strict().Readings(op.ID) {
			if r.Operation != op.ID || r.Field == "" || (r.Alias == "") == (r.Type == "") {
				t.Errorf("%s: a reading is an alias or a type, of a field: %+v", op.ID, r)
			}
			if !regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(r.Decision) + ` \|`).Match(rows) {
				t.Errorf("%s.%s: x-lenient row %q is not a row of DECISIONS.md", op.ID, r.Field, r.Decision)
			}
			all = append(all, r)
		}
	}
	want := map[Reading]bool{
		{Operation: "createModel", Field: "model_name", Alias: "name", Decision: "D-21"}:       true,
		{Operation: "createModel", Field: "dataset_id", Alias: "dataset", Decision: "D-21"}:    true,
		{Operation: "createModel", Field: "dataset_id", Type: "integer", Decision: "D-21"}:     true,
		{Operation: "createConversation", Field: "model_id", Type: "string", Decision: "D-21"}: true,
		{Operation: "createDataset", Field: "dataset_name", Alias: "name", Decision: "D-21"}:   true,
		{Operation: "createDataset", Field: "files", Alias: "file", Decision: "D-21"}:          true,
		{Operation: "uploadDatasetFiles", Field: "files", Alias: "file", Decision: "D-21"}:     true,
	}
	for _, r := range all {
		if !want[r] {
			t.Errorf("an x-lenient reading D-21 does not list: %+v", r)
		}
		delete(want, r)
	}
	for r := range want {
		t.Errorf("a reading of D-21 has no x-lenient mark: %+v", r)
	}
	// The readings of one operation come aliases first: a field is found
	// under its name before its value is read.
	rs := Strict().Readings("createModel")
	if len(rs) != 3 || rs[2].Type != "integer" {
		t.Errorf("createModel readings %+v: aliases first", rs)
	}
	if d, ok := Mark(map[string]any{"x-decision": map[string]any{"row": "D-21", "class": "decided", "relax": []any{"type"}}}); !ok || d.Row != "D-21" || d.Class != "decided" || len(d.Relax) != 1 {
		t.Errorf("Mark read %+v, %v", d, ok)
	}
}
