package coverage

import (
	"slices"
	"testing"

	"contractkit/spec"
)

// Compare names the operations and answer fields that appeared in the
// coverage or left it.
func TestCompareCoverage(t *testing.T) {
	rec := New(spec.Strict())
	rec.Observe("GET", "/api/v1/user/model", 200, "application/json", []byte(`{"status":"success","data":[{"id":1,"name":"a"}]}`))
	before := rec.Report()
	rec = New(spec.Strict())
	rec.Observe("GET", "/api/v1/user/dataset", 200, "application/json", []byte(`{"status":"success","data":[]}`))
	rec.Observe("GET", "/api/v1/user/model", 200, "application/json", []byte(`{"status":"success","data":[{"id":1}]}`))
	after := rec.Report()
	c := Compare(before, after)
	if !slices.Contains(c.OperationsAppeared, "GET /api/v1/user/dataset (listDatasets)") || len(c.OperationsGone) != 0 {
		t.Errorf("operations appeared %q, gone %q", c.OperationsAppeared, c.OperationsGone)
	}
	if !slices.Contains(c.FieldsGone, "listModels 200 application/json: data[].name") || slices.Contains(c.FieldsGone, "listModels 200 application/json: data[].id") {
		t.Errorf("fields gone %q: want data[].name and not data[].id", c.FieldsGone)
	}
	if !slices.Contains(c.FieldsAppeared, "listDatasets 200 application/json: data") {
		t.Errorf("fields appeared %q", c.FieldsAppeared)
	}
	back := Compare(after, before)
	if !slices.Equal(back.OperationsGone, c.OperationsAppeared) || !slices.Equal(back.FieldsAppeared, c.FieldsGone) {
		t.Errorf("the comparison is not symmetric: %+v / %+v", c, back)
	}
}
