package refmodel_test

import (
	"encoding/json"
	"testing"

	"contractkit/conformance/refmodel"
	"contractkit/judge"
)

// A request carried another way (D-49) is the plain request: a break of a
// decided prediction by it, while the same request carried plainly met
// them all, is declared; a refusal of it once the operation took requests
// is declared; a 411 to a body sent chunked is RFC 9112's and tells
// nothing.
func TestRequestsCarriedOtherwiseAreThePlainRequest(t *testing.T) {
	m := fresh(true)
	world(t, m)
	clean(t, m, refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": "Quality check", "model_id": json.Number("2")}},
		ok(t, `{"status":"success","data":{"id":5,"name":"Quality check","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`}}`))
	check := refmodel.Call{Op: "checkEvaluationName", Key: refmodel.KeyA, Query: query("name", "Quality check")}
	taken := ok(t, `{"status":"success","data":{"valid":true,"available":false,"message":"taken"}}`)
	plus := ok(t, `{"status":"success","data":{"valid":false,"available":true,"message":"+ is not allowed"}}`)

	// Alone, the + read as a plus breaks D-19's rules: decided.
	alone := check
	alone.Wire.Space = refmodel.SpacePlus
	wantFinding(t, m, alone, plus, "/data/valid", "name-valid", judge.Decided)
	// Once the same request with %20 was answered as predicted, declared.
	pct := check
	pct.Wire.Space = refmodel.SpacePercent
	clean(t, m, pct, taken)
	v := wantFinding(t, m, alone, plus, "/data/valid", "name-valid", judge.Declared)
	for _, f := range v.Findings {
		if f.Class != judge.Declared || f.Clause != "1" {
			t.Errorf("%s: %s, want declared on §1", f, f.Class)
		}
	}
	// The same spelling again is no twin of itself.
	again := refmodel.Call{Op: "checkEvaluationName", Key: refmodel.KeyA, Query: query("name", "Other name")}
	again.Wire.Space = refmodel.SpacePercent
	wantFinding(t, m, again, ok(t, `{"status":"success","data":{"valid":false,"available":true,"message":"no"}}`), "/data/valid", "name-valid", judge.Decided)

	// A body sent chunked: refused after the operation took requests is a
	// declared break; a 411 is the server's right.
	conv := refmodel.Call{Op: "createConversation", Key: refmodel.KeyA, Body: map[string]any{"model_id": json.Number("2"), "title": "Leave"}}
	clean(t, m, conv, ok(t, `{"status":"success","data":{"id":"7a1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d","model_id":2,"title":"Leave","total_messages":0,"created_at":`+ts1+`,"updated_at":`+ts1+`}}`))
	chunked := conv
	chunked.Wire.Chunked = true
	clean(t, m, chunked, answer(t, 411, `{"status":"error","message":"length required"}`))
	wantFinding(t, m, chunked, answer(t, 400, `{"status":"error","message":"request body is required"}`), "status", "refused-valid", judge.Declared)
	cont := conv
	cont.Wire.Continue = true
	wantFinding(t, m, cont, answer(t, 417, `{"status":"error","message":"expectation failed"}`), "status", "refused-valid", judge.Declared)
	// A path id percent-encoded names the same model.
	get := refmodel.Call{Op: "getModel", Key: refmodel.KeyA, Path: map[string]string{"model_id": "2"}}
	get.Wire.Escaped = true
	wantFinding(t, m, get, answer(t, 404, `{"status":"error","message":"not found"}`), "status", "refused-valid", judge.Declared)
}

// How a call is carried is how the senders write it: %20 or + for a
// space (a plus itself %2B), every byte of a path id escaped.
func TestWireSpellings(t *testing.T) {
	c := refmodel.Call{Query: query("name", "a b+c"), Path: map[string]string{"model_id": "42"}}
	if got := c.RawQuery(); got != "name=a+b%2Bc" {
		t.Errorf("plain query %q", got)
	}
	c.Wire.Space = refmodel.SpacePercent
	if got := c.RawQuery(); got != "name=a%20b%2Bc" {
		t.Errorf("%%20 query %q", got)
	}
	if got := c.PathOf("/m/{model_id}"); got != "/m/42" {
		t.Errorf("plain path %q", got)
	}
	c.Wire.Escaped = true
	if got := c.PathOf("/m/{model_id}"); got != "/m/%34%32" {
		t.Errorf("escaped path %q", got)
	}
}
