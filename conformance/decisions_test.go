package conformance

import (
	"reflect"
	"testing"

	"contractkit/spec"
)

func TestContractMismatchesNameTheirDecision(t *testing.T) {
	x := recorded("GET", "/api/v1/user/model", 200,
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
	x := recorded("GET", "/api/v1/evaluations/5", 418, `{"status":"error","message":"teapot"}`)
	m := ContractMismatches(spec.Declared(), x)
	if len(m) != 1 || !m[0].StatusCode || m[0].Decision != "D-17" {
		t.Errorf("got %+v, want one status-code mismatch of D-17", m)
	}
	decl, dec := contract(x)
	if len(decl) != 0 || len(dec["D-17"]) != 1 {
		t.Errorf("contract() = %q, %v: an undocumented code is a decided difference", decl, dec)
	}
}
