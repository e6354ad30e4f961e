package spec_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"contractkit/spec"
)

// Load the contract as written and look an operation up by its operationId.
func ExampleContract_Operation() {
	op, ok := spec.Strict().Operation("createModel")
	fmt.Println(ok, op.Method, op.Path)
	fmt.Println(op.Statuses)
	// Output:
	// true POST /api/v1/user/model
	// [200 400 401 404 413 422 429 500]
}

// Find the operation a request is routed to, with its path parameters.
func ExampleContract_Find() {
	op, params, _, ok := spec.Strict().Find(httptest.NewRequest("GET", "/api/v1/evaluations/41", nil))
	fmt.Println(ok, op.OperationID, params["evaluation_id"])
	// Output: true getEvaluation 41
}

// Validate a response in the declared view: a dataset with a null
// description conforms, since the seed does not show which dataset fields
// are nullable; the contract as written (Strict) refuses it.
func ExampleDeclared() {
	body := `{"status":"success","data":{"id":12,"name":"Handbook","description":null}}`
	for _, c := range []struct {
		name string
		c    *spec.Contract
	}{{"declared", spec.Declared()}, {"strict", spec.Strict()}} {
		req := httptest.NewRequest("GET", "/api/v1/user/dataset/12", nil)
		res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: req}
		ok, errs := c.c.Validator.ValidateHttpResponse(req, res)
		fmt.Println(c.name, ok, len(spec.Describe(errs)) > 0)
	}
	// Output:
	// declared true false
	// strict false true
}

// Describe turns validation errors into "field: rule" lines, safe to show.
func ExampleDescribe() {
	req := httptest.NewRequest("POST", "/api/v1/user/inference", strings.NewReader(`{"query":"q","model_id":1,"temperature":1.5}`))
	req.Header.Set("Content-Type", "application/json")
	_, errs := spec.Declared().Validator.ValidateHttpRequestSync(req)
	for _, line := range spec.Describe(errs) {
		fmt.Println(strings.SplitN(line, ":", 2)[0])
	}
	// Output: temperature
}

// Relax builds the declared view from the document: here a decided enum is
// dropped and the seed's type is kept.
func ExampleRelax() {
	doc := []byte("type: string\nenum: [a, b]\nx-decision: {row: D-11, class: decided, relax: [enum]}\n")
	out, err := spec.Relax(doc)
	fmt.Print(string(out), err, "\n")
	// Output:
	// type: string
	// x-decision: {row: D-11, class: decided, relax: [enum]}
	// <nil>
}

// Costly lists what a call spends (the x-cost marks, D-31): what a run
// against a paid deployment counts and caps.
func ExampleContract_Costly() {
	for _, op := range spec.Strict().Costly() {
		fmt.Println(op.ID, op.Cost.Kind, op.Cost.Effect)
	}
	// Output:
	// createEvaluation evaluations creates
	// runRagasEvaluation evaluation-runs starts
	// startEvaluation evaluation-runs starts
	// createConversation conversations creates
	// createDataset datasets creates
	// uploadDatasetFiles datasets starts
	// runInference inferences starts
	// createModel models creates
}
