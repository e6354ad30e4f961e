package coverage

import (
	"reflect"
	"slices"
	"strings"
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

// Only what both reports document is compared: an operation one report
// lacks, or a body whose schema has another number of fields (another
// contract's), is no change; a status or media type of one report alone
// neither.
func TestCompareOnlyWhatBothDocument(t *testing.T) {
	op := func(id string, calls int, bodies ...Body) Operation {
		return Operation{ID: id, Method: "GET", Path: "/" + id, Calls: calls, Statuses: []Status{{Code: "200", Bodies: bodies}}}
	}
	json := func(fields int, unseen ...string) Body {
		return Body{MediaType: "application/json", Fields: fields, NeverObserved: unseen}
	}
	before := Report{Operations: []Operation{
		op("a", 1, json(3, "x")),
		op("b", 1, json(3, "x")),
		op("gone", 2, json(1)),
	}}
	after := Report{Operations: []Operation{
		op("a", 1, json(3, "y")),                             // x appeared, y left
		op("b", 1, json(4, "y", "z")),                        // another contract's body: no change
		op("gone", 0, json(1, "data")),                       // no call now: gone, its field with it
		op("new", 1, json(2, "data")),                        // not in before: no change
		op("c", 0, Body{MediaType: "text/plain", Fields: 1}), // neither
	}}
	got := Compare(before, after)
	want := Change{
		OperationsAppeared: []string{},
		OperationsGone:     []string{"GET /gone (gone)"},
		FieldsAppeared:     []string{"a 200 application/json: x"},
		FieldsGone:         []string{"a 200 application/json: y", "gone 200 application/json: data"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compare = %+v\nwant %+v", got, want)
	}
	if got.Empty() || !Compare(before, before).Empty() {
		t.Errorf("Empty: a change reads empty, or a report compared with itself does not")
	}
}

// Lines titles each list with its count and bounds it to limit entries;
// an empty change has no line.
func TestChangeLines(t *testing.T) {
	c := Change{OperationsAppeared: []string{"GET /a (a)"}, FieldsGone: []string{"f1", "f2", "f3"}}
	want := []string{
		"operations called now, not before (1):",
		"  - GET /a (a)",
		"answer fields observed before, not now (3):",
		"  - f1",
		"  - f2",
		"  … and 1 more (the JSON report's changes has them all)",
	}
	if got := c.Lines(2); !slices.Equal(got, want) {
		t.Errorf("Lines(2):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := (Change{}).Lines(2); len(got) != 0 {
		t.Errorf("an empty change has lines %q", got)
	}
}
