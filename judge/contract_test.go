package judge

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"contractkit/exchange"
	"contractkit/spec"
)

// answered is an exchange of method on path answered status with a JSON body.
func answered(method, path string, status int, body string) *exchange.Exchange {
	return &exchange.Exchange{Method: method, URL: "http://x" + path, Path: path, Status: status,
		RequestHeader:  http.Header{"Authorization": {"Bearer <redacted:api-key>"}},
		ResponseHeader: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, Raw: []byte(body)}
}

func TestContractFindingsAreValuesAndComplete(t *testing.T) {
	x := answered("GET", "/api/v1/evaluations/5", 200,
		`{"status":"ok","data":{"id":"x","name":3,"type":"ragas","model_id":1,"status":"weird","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`)
	got := Contract(spec.Declared(), x).Lines()
	// The declared view lets an evaluation's fields be null (their
	// nullability is not shown, D-09), and says so.
	want := []string{
		`/data/id: schema: want null or integer, got string (D-09)`,
		`/data/name: schema: want null or integer, got number (D-09)`,
		`/data/status: schema: want one of 'pending', 'running', 'completed', 'failed', <nil>, got "weird" (D-09)`,
		`/status: schema: want 'success', got "ok"`,
	}
	want[1] = `/data/name: schema: want null or string, got number (D-09)`
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, line := range got {
		if strings.Contains(line, "properties") || len(line) > 200 {
			t.Errorf("a line echoes the schema: %s", line)
		}
	}
	// Judged against both views, a break of the declared one rests on no
	// decision.
	for _, f := range tj.contract("", x) {
		if f.Class == Declared && f.Decision != "" {
			t.Errorf("a declared finding names a decision: %+v", f)
		}
	}
}

func TestContractSkipsPathsOutsideTheContract(t *testing.T) {
	x := answered("GET", "/api/v1/nowhere", 404, `{"status":"error","message":"no"}`)
	if m := Contract(spec.Strict(), x); len(m) != 0 {
		t.Errorf("got %+v for a path the contract does not have", m)
	}
}

func TestContractFindingsNameTheirDecision(t *testing.T) {
	x := answered("GET", "/api/v1/user/model", 200,
		`{"status":"success","data":[{"id":1,"name":"m","status":"cooking","owner_email":"nobody"}]}`)
	if m := Contract(spec.Declared(), x); len(m) != 0 {
		t.Fatalf("the declared view objects to decided values: %q", m.Lines())
	}
	got := map[string]string{}
	for _, f := range tj.contract("", x) {
		if f.Class != Decided {
			t.Errorf("a difference of the contract as written alone is decided: %+v", f)
		}
		got[f.Pointer] = f.Decision
	}
	want := map[string]string{"/data/0/owner_email": "D-22", "/data/0/status": "D-11"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestUndocumentedStatusIsD17(t *testing.T) {
	x := answered("GET", "/api/v1/evaluations/5", 418, `{"status":"error","message":"teapot"}`)
	m := Contract(spec.Declared(), x)
	if len(m) != 1 || m[0].Rule != RuleStatus || m[0].Decision != "D-17" || m[0].Got != "418" {
		t.Errorf("got %+v, want one status finding of D-17", m)
	}
	if fs := tj.contract("", x); len(fs) != 1 || fs[0].Class != Decided || fs[0].Decision != "D-17" {
		t.Errorf("contract() = %+v: an undocumented code is a decided difference", fs)
	}
}

// A success other than the one the reference names (§4.1: a model delete
// is "HTTP 200 on success") breaks the reference, not D-17: the status is a
// fact of its own, whatever row decides the rest of the answer.
func TestASeedSuccessStatusIsDeclared(t *testing.T) {
	body := `{"status":"success","data":{"message":"Model deleted","id":"7"}}`
	for _, status := range []int{201, 202, 204} {
		x := answered("DELETE", "/api/v1/user/model/7", status, body)
		fs := tj.Verdict(x, nil, false).Rule(RuleStatus)
		if len(fs) != 1 || fs[0].Class != Declared || fs[0].Clause != "4.1.4" || fs[0].Decision != "" {
			t.Errorf("a model delete answered %d: %+v, want one declared status finding on §4.1.4", status, fs)
		}
	}
	// A success status the reference does not name stays a decided
	// difference (a conversation create answered 201).
	x := answered("POST", "/api/v1/user/conversations", 201, `{"status":"success","data":{}}`)
	for _, f := range tj.Verdict(x, nil, false).Rule(RuleStatus) {
		if f.Class != Decided || f.Decision != "D-17" {
			t.Errorf("a conversation create answered 201: %+v, want a D-17 difference", f)
		}
	}
}
