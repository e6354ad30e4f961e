package conformance

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"contractkit/spec"
)

func TestEnvelopeProblems(t *testing.T) {
	tests := []struct {
		name, body, want string
		problems         []string
	}{
		{"success", `{"status":"success","data":[]}`, "success", nil},
		{"success with null data", `{"status":"success","data":null}`, "success", nil},
		{"success with extra fields", `{"status":"success","data":{},"meta":1}`, "success", nil},
		{"success without data", `{"status":"success"}`, "success", []string{"$.data: missing"}},
		{"success with another status", `{"status":"ok","data":{}}`, "success", []string{`$.status: "ok", want "success"`}},
		{"a bare list", `[1,2]`, "success", []string{"a JSON array, want an object"}},
		{"not JSON", `<html>`, "success", []string{"body: not JSON"}},
		{"error", `{"status":"error","message":"nope"}`, "error", nil},
		{"error without message", `{"status":"error"}`, "error", []string{"$.message: missing"}},
		{"error with an empty message", `{"status":"error","message":" "}`, "error", []string{"$.message: empty"}},
		{"error with a numeric message", `{"status":"error","message":3}`, "error", []string{"$.message: a number"}},
		{"error without status", `{"message":"x"}`, "error", []string{`$.status: missing, want "error"`}},
		{"error with a boolean status", `{"status":false,"message":"x"}`, "error", []string{"$.status: a boolean"}},
		{"every problem at once", `{"status":"success"}`, "error", []string{`$.status: "success", want "error"`, "$.message: missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EnvelopeProblems([]byte(tt.body), tt.want)
			if len(got) != len(tt.problems) {
				t.Fatalf("got %q, want %q", got, tt.problems)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.problems[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], tt.problems[i])
				}
			}
		})
	}
}

func TestJSONContentType(t *testing.T) {
	tests := []struct {
		ct string
		ok bool
	}{
		{"application/json", true},
		{"application/json; charset=utf-8", true},
		{"Application/JSON;charset=UTF-8", true},
		{"", false},
		{"text/plain", false},
		{"application/problem+json", false},
		{"application/json; charset", false},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.ct != "" {
			h.Set("Content-Type", tt.ct)
		}
		if got := JSONContentTypeProblems(h); (len(got) == 0) != tt.ok {
			t.Errorf("Content-Type %q: problems %q, want ok=%v", tt.ct, got, tt.ok)
		}
	}
}

func TestStatusProblems(t *testing.T) {
	x := &Exchange{Status: 409}
	if p := StatusProblems(x); len(p) != 0 {
		t.Errorf("409 as any 4xx: %q", p)
	}
	if p := StatusProblems(x, 400, 422); len(p) != 1 || p[0] != "status: 409, want 400 or 422" {
		t.Errorf("409 against 400, 422: %q", p)
	}
	if p := StatusProblems(&Exchange{Status: 200}); len(p) != 1 {
		t.Errorf("200 as a 4xx: %q", p)
	}
	if p := StatusProblems(&Exchange{Error: "connection refused"}); len(p) != 1 || !strings.Contains(p[0], "no response") {
		t.Errorf("no response: %q", p)
	}
}

func exchange(method, path string, status int, body string) *Exchange {
	return &Exchange{Method: method, URL: "http://x" + path, path: path, Status: status,
		ResponseHeader: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, raw: []byte(body)}
}

func TestContractMismatchesAreReadableAndComplete(t *testing.T) {
	x := exchange("GET", "/api/v1/evaluations/5", 200,
		`{"status":"ok","data":{"id":"x","name":3,"type":"ragas","model_id":1,"status":"weird","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`)
	var got []string
	for _, m := range ContractMismatches(spec.Declared(), x) {
		got = append(got, m.Text)
	}
	want := []string{
		`$.data.id: got string, want integer`,
		`$.data.name: got number, want string`,
		`$.data.status: value must be one of 'pending', 'running', 'completed', 'failed' (got "weird")`,
		`$.status: value must be 'success' (got "ok")`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mismatches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, line := range got {
		if strings.Contains(line, "properties") || len(line) > 200 {
			t.Errorf("a line echoes the schema: %s", line)
		}
	}
}

func TestContractMismatchesNameTheirDecision(t *testing.T) {
	x := exchange("GET", "/api/v1/user/model", 200,
		`{"status":"success","data":[{"id":1,"name":"m","status":"cooking","owner_email":"nobody"}]}`)
	if m := ContractMismatches(spec.Declared(), x); len(m) != 0 {
		t.Fatalf("the declared view objects to decided values: %+v", m)
	}
	got := map[string]string{}
	for _, m := range ContractMismatches(spec.Strict(), x) {
		got[m.Text] = m.Decision
	}
	want := map[string]string{
		`$.data[0].owner_email: 'nobody' is not valid email: missing @ (got "nobody")`:                           "D-22",
		`$.data[0].status: value must be one of 'pending', 'training', 'ready', 'failed', <nil> (got "cooking")`: "D-11",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestContractMismatchesUndocumentedStatusIsD17(t *testing.T) {
	x := exchange("GET", "/api/v1/evaluations/5", 418, `{"status":"error","message":"teapot"}`)
	m := ContractMismatches(spec.Declared(), x)
	if len(m) != 1 || !m[0].StatusCode || m[0].Decision != "D-17" {
		t.Errorf("got %+v, want one status-code mismatch of D-17", m)
	}
	decl, dec := contract(x)
	if len(decl) != 0 || len(dec["D-17"]) != 1 {
		t.Errorf("contract() = %q, %v: an undocumented code is a decided difference", decl, dec)
	}
}

func TestContractMismatchesSkipPathsOutsideTheContract(t *testing.T) {
	x := exchange("GET", "/api/v1/nowhere", 404, `{"status":"error","message":"no"}`)
	if m := ContractMismatches(spec.Strict(), x); len(m) != 0 {
		t.Errorf("got %+v for a path the contract does not have", m)
	}
}

func TestJSONPathAccess(t *testing.T) {
	j, err := ParseJSON([]byte(`{"data":[{"id":7,"name":"n","tags":["a"]}],"x.y":{"z":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string
		ok   bool
	}{
		{"$.data[0].id", "7", true},
		{"$.data[0].tags[0]", `"a"`, true},
		{"$['x.y'].z", "true", true},
		{"$.data[1]", "", false},
		{"$.nope", "", false},
	}
	for _, tt := range tests {
		v, ok := j.Path(tt.path)
		if ok != tt.ok || (ok && v.String() != tt.want) {
			t.Errorf("Path(%s) = %s, %v; want %s, %v", tt.path, v, ok, tt.want, tt.ok)
		}
	}
	if id := j.Get("data", 0, "id").ID(); id != "7" {
		t.Errorf("ID() = %q, want 7", id)
	}
	if recs := records(j.Get("data")); len(recs) != 1 {
		t.Errorf("records(array) = %d, want 1", len(recs))
	}
	wrapped, _ := ParseJSON([]byte(`{"models":[{"id":1},{"id":2}],"total":2}`))
	if ids := idsOf(records(wrapped)); !reflect.DeepEqual(ids, []string{"1", "2"}) {
		t.Errorf("records(wrapped) ids = %v", ids)
	}
}
