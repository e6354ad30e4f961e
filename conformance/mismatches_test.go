package conformance

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"contractkit/conformance/exchange"
	"contractkit/spec"
)

func recorded(method, path string, status int, body string) *exchange.Exchange {
	return &exchange.Exchange{Method: method, URL: "http://x" + path, Path: path, Status: status,
		ResponseHeader: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, Raw: []byte(body)}
}

func TestContractMismatchesAreReadableAndComplete(t *testing.T) {
	x := recorded("GET", "/api/v1/evaluations/5", 200,
		`{"status":"ok","data":{"id":"x","name":3,"type":"ragas","model_id":1,"status":"weird","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`)
	var got []string
	for _, m := range ContractMismatches(spec.Declared(), x) {
		got = append(got, m.Text)
	}
	// The declared view lets an evaluation's fields be null (their
	// nullability is not shown, D-09), and says so.
	want := []string{
		`$.data.id: got string, want null or integer`,
		`$.data.name: got number, want null or string`,
		`$.data.status: value must be one of 'pending', 'running', 'completed', 'failed', <nil> (got "weird")`,
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

func TestContractMismatchesSkipPathsOutsideTheContract(t *testing.T) {
	x := recorded("GET", "/api/v1/nowhere", 404, `{"status":"error","message":"no"}`)
	if m := ContractMismatches(spec.Strict(), x); len(m) != 0 {
		t.Errorf("got %+v for a path the contract does not have", m)
	}
}
