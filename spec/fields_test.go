package spec

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func TestRequestFieldAndQueryParamNameWhatIsMissing(t *testing.T) {
	c := Strict()
	name, err := c.RequestField("createDataset", "multipart/form-data", "dataset_name")
	if err != nil || name.MaxLength == nil || *name.MaxLength != 255 || name.MinLength != 1 {
		t.Fatalf("createDataset dataset_name: %+v, %v; want 1..255 (D-15)", name, err)
	}
	files, err := c.RequestField("uploadDatasetFiles", "multipart/form-data", "files")
	if err != nil || files.MaxItems == nil || *files.MaxItems != 500 || files.MinItems != 1 {
		t.Fatalf("uploadDatasetFiles files: %+v, %v; want 1..500 items", files, err)
	}
	title, err := c.QueryParam("renameConversation", "title")
	if err != nil || title.MaxLength == nil || *title.MaxLength != 255 {
		t.Fatalf("renameConversation ?title: %+v, %v; want at most 255", title, err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"unknown operation", second(c.RequestField("patchDataset", "application/json", "name")), "no operation patchDataset"},
		{"no body", second(c.RequestField("listModels", "application/json", "name")), "listModels takes no request body"},
		{"other media", second(c.RequestField("createDataset", "application/json", "dataset_name")), "createDataset takes no application/json body"},
		{"unknown field", second(c.RequestField("createModel", "application/json", "colour")), "has no field colour"},
		{"unknown parameter", second(c.QueryParam("listEvaluations", "sort")), "listEvaluations has no query parameter sort"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestSplitMarksOfTheDatasetForm: the document states D-08's separators and
// D-28's limits on the two split fields, and the declared view drops them
// (they are decided).
func TestSplitMarksOfTheDatasetForm(t *testing.T) {
	for _, tc := range []struct {
		field, seps string
		max         int
	}{{"tags", ",\n", 50}, {"urls", ", \t\r\n", 100}} {
		s, err := Strict().RequestField("createDataset", "multipart/form-data", tc.field)
		if err != nil {
			t.Fatal(err)
		}
		sp, ok, err := SplitOf(s)
		if !ok || err != nil || sp.Separators != tc.seps || sp.MaxItems != tc.max {
			t.Errorf("%s: %+v, %v, %v; want separators %q and at most %d items", tc.field, sp, ok, err, tc.seps, tc.max)
		}
		d, err := Declared().RequestField("createDataset", "multipart/form-data", tc.field)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := SplitOf(d); ok {
			t.Errorf("%s: the declared view keeps the decided x-split mark", tc.field)
		}
	}
}

func TestSplitOfRefusesAnIncompleteMark(t *testing.T) {
	for _, mark := range []any{
		"50",
		map[string]any{"maxItems": 50.0},
		map[string]any{"separators": ",", "maxItems": 0.0},
		map[string]any{"separators": ",", "maxItems": 2.5},
		map[string]any{"separators": ",", "maxItems": "50"},
	} {
		s := &openapi3.Schema{Extensions: map[string]any{SplitMark: mark}}
		if _, ok, err := SplitOf(s); !ok || err == nil {
			t.Errorf("%v: ok %v, err %v; want the mark found and refused", mark, ok, err)
		}
	}
	if _, ok, err := SplitOf(&openapi3.Schema{}); ok || err != nil {
		t.Errorf("no mark: ok %v, err %v", ok, err)
	}
}
