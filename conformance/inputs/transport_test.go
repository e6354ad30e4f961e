package inputs

import (
	"slices"
	"strings"
	"testing"
)

// The last dimensions come from the contract: a body carried chunked and
// after Expect: 100-continue wherever there is a body, a query text's
// space written both ways, percent-encoded path ids, text from every
// plane in each text field that takes any text and read back by every
// read, and the name check asked about a name held in each state of an
// evaluation and in another case (the x-predict mark's param, of and
// field; the field unique case-insensitively).
func TestTheLastDimensionsAreDerived(t *testing.T) {
	c := catalog(t)
	names := func(op string) []string {
		var out []string
		for _, d := range c.DeriveOp(c.Op(op)) {
			out = append(out, d.Name)
		}
		return out
	}
	want := map[string][]string{
		"checkEvaluationName": {"query:name with a space written %20", "query:name with a space written +", "query:name = text from every Unicode plane",
			"query:name = the name of a evaluation status pending", "query:name = the name of a evaluation status running",
			"query:name = the name of a evaluation status completed", "query:name = the name of a evaluation status failed",
			"query:name = a evaluation's name in another letter case"},
		"createDataset":      {"a body sent chunked (no Content-Length)", "a body sent after Expect: 100-continue", "form:dataset_name = text from every Unicode plane"},
		"createEvaluation":   {"body:name = text from every Unicode plane", "body:description = text from every Unicode plane"},
		"getModel":           {"path ids percent-encoded", "text from every Unicode plane read back"},
		"listMessages":       {"path ids percent-encoded", "text from every Unicode plane read back"},
		"renameConversation": {"query:title with a space written +", "body:title = text from every Unicode plane", "query:title = text from every Unicode plane"},
		"runInference":       {"a body sent chunked (no Content-Length)", "body:query = text from every Unicode plane", "an answer quoting text from every Unicode plane"},
	}
	for op, list := range want {
		got := names(op)
		for _, w := range list {
			if !slices.Contains(got, w) {
				t.Errorf("%s: no dimension %q in\n  %s", op, w, strings.Join(got, "\n  "))
			}
		}
	}
	for _, n := range names("createEvaluation") {
		if strings.HasPrefix(n, "body:type = text") || strings.HasPrefix(n, "body:benchmark_type = text") {
			t.Errorf("%s: a field whose values the reference names takes no free text", n)
		}
	}
	for _, n := range names("listModels") {
		if strings.Contains(n, "chunked") || strings.Contains(n, "percent-encoded") {
			t.Errorf("listModels has no body and no path id: %s", n)
		}
	}
}
