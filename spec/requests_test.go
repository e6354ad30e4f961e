package spec

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	verrors "github.com/pb33f/libopenapi-validator/errors"
)

// TestRequestCheckAgreesWithTheFullValidator: the checks resolved once per
// operation give the same verdict and the same problems as the library's
// ValidateHttpRequestSync, which finds the route itself, on valid and
// invalid path ids, query values and bodies of every operation, in both
// views of the contract.
func TestRequestCheckAgreesWithTheFullValidator(t *testing.T) {
	ids := []string{"12", "abc", "-1", "0", "1.5"}
	queries := []string{"", "limit=abc", "limit=-5", "limit=10&offset=2", "status=unknown", "status=ready", "page=0", "skip=x&limit=1000000", "title=Renamed"}
	bodies := []string{"", "{}", `{"unexpected":1}`, "[1]", `"text"`, `{"model_id":"x","title":5}`, `{"name":"n","model_id":1,"dataset_id":"2","type":"benchmark"}`,
		`{"query":"hi","model_id":1}`, `{"model_name":"m","dataset_id":"1"}`, `{"temperature":7,"query":"q","model_id":1}`}
	for _, view := range []struct {
		name string
		c    *Contract
	}{{"strict", Strict()}, {"declared", Declared()}} {
		runs := 0
		for _, op := range view.c.Operations {
			rc := view.c.Request(op.ID)
			if rc == nil {
				t.Fatalf("%s: %s has no request check", view.name, op.ID)
			}
			for _, id := range ids {
				path := op.Path
				for strings.Contains(path, "{") {
					i, j := strings.Index(path, "{"), strings.Index(path, "}")
					path = path[:i] + id + path[j+1:]
				}
				for _, q := range queries {
					for _, body := range bodies {
						target := path
						if q != "" {
							target += "?" + q
						}
						newReq := func() *http.Request {
							r := httptest.NewRequest(op.Method, target, strings.NewReader(body))
							if body != "" {
								r.Header.Set("Content-Type", "application/json")
							}
							return r
						}
						wantOK, wantErrs := view.c.Validator.ValidateHttpRequestSync(newReq())
						gotOK, gotErrs := rc.Validate(newReq())
						runs++
						if gotOK != wantOK || !slices.Equal(messages(gotErrs), messages(wantErrs)) {
							t.Errorf("%s %s %s body %q:\n got  %v %q\n want %v %q", view.name, op.Method, target, body,
								gotOK, messages(gotErrs), wantOK, messages(wantErrs))
						}
					}
				}
			}
		}
		if runs == 0 {
			t.Fatalf("%s: no request compared", view.name)
		}
	}
}

func messages(errs []*verrors.ValidationError) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		// The library lists a body's schema failures in map order: sorted
		// here (spec.Describe sorts them too).
		var failures []string
		for _, se := range e.SchemaValidationErrors {
			failures = append(failures, se.FieldPath+": "+SortedReason(se.Reason))
		}
		slices.Sort(failures)
		out = append(out, e.Message+" | "+e.Reason+" | "+strings.Join(failures, " | "))
	}
	slices.Sort(out)
	return out
}

// TestDescribeIsTheSameForTheSameRequest: a body with several problems gets
// the same lines in the same order every time, although the library reports
// them in map order.
func TestDescribeIsTheSameForTheSameRequest(t *testing.T) {
	rc := Strict().Request("createConversation")
	for _, tc := range []struct{ body, want string }{
		{`{"model_id":"x","title":5}`, "model_id"},
		// The closed body (D-29) names every unknown field, sorted.
		{`{"model_id":1,"ttle":"c","titel":"a","tilte":"b"}`, "additional properties 'tilte', 'titel', 'ttle' not allowed"},
	} {
		var first []string
		for range 30 {
			r := httptest.NewRequest(http.MethodPost, "/api/v1/user/conversations", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", "application/json")
			ok, errs := rc.Validate(r)
			if ok {
				t.Fatalf("%s was accepted", tc.body)
			}
			got := Describe(errs)
			if first == nil {
				first = got
				if !strings.Contains(strings.Join(first, "; "), tc.want) {
					t.Fatalf("Describe got %q, want %q among them", first, tc.want)
				}
			} else if !slices.Equal(got, first) {
				t.Fatalf("Describe got %q, earlier %q: the order changes between runs", got, first)
			}
		}
	}
}

// TestADecidedParameterNameRefusesNothingDeclared: the evaluation list's
// filter is the seed's (§3.1 rule 2) but its name is D-05's, so a server
// that names it otherwise ignores `status=paused`: only the strict view
// refuses it, and a client's valid filter passes both.
func TestADecidedParameterNameRefusesNothingDeclared(t *testing.T) {
	for _, tc := range []struct {
		view   *Contract
		query  string
		wantOK bool
	}{
		{Strict(), "status=paused", false},
		{Declared(), "status=paused", true},
		{Strict(), "status=running", true},
		{Declared(), "status=running", true},
		{Declared(), "page=1&per_page=20&status=completed", true},
	} {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/evaluations?"+tc.query, nil)
		if ok, errs := tc.view.Request("listEvaluations").Validate(r); ok != tc.wantOK {
			t.Errorf("view %p ?%s: valid %v, want %v (%v)", tc.view, tc.query, ok, tc.wantOK, messages(errs))
		}
	}
}
