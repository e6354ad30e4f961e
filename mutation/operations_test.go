package mutation

import (
	"net/http/httptest"
	"testing"

	"contractkit/spec"
)

// TestKeyedOperationsAreTheContracts: every operationId and area a mutant
// names is the contract's, so a renamed operation cannot leave a mutant
// matching nothing; an exemption is for an operation no mutant names.
func TestKeyedOperationsAreTheContracts(t *testing.T) {
	c := spec.Strict()
	ids := keyedOperations()
	if len(ids) < 10 {
		t.Fatalf("%d keyed operations: the tables were not registered (%v)", len(ids), ids)
	}
	for _, id := range ids {
		if _, ok := c.Operation(id); !ok {
			t.Errorf("a mutant names %s, which is no operation of the contract", id)
		}
		if why, ok := unmutated[id]; ok {
			t.Errorf("%s is named by a mutant and exempted (%q): drop the exemption", id, why)
		}
	}
	for id := range unmutated {
		if _, ok := c.Operation(id); !ok {
			t.Errorf("the exemption of %s names no operation of the contract", id)
		}
	}
	areas := map[string]bool{}
	for _, op := range c.Kin.Paths.Map() {
		for _, o := range op.Operations() {
			areas[o.Tags[0]] = true
		}
	}
	for _, a := range []string{"models", "datasets", "evaluations"} {
		if !areas[a] {
			t.Errorf("onArea(%q): no operation of the contract is tagged %s", a, a)
		}
	}
}

// TestExchangeRoutesTheClientsRequest: an exchange's operation, area and
// path parameters are the contract's router's, for the request as the
// client sent it (a request rewriter may change Req).
func TestExchangeRoutesTheClientsRequest(t *testing.T) {
	r := httptest.NewRequest("PATCH", "/api/v1/user/conversations/c%201", nil)
	x := &Exchange{Client: r, Req: r.Clone(r.Context())}
	x.Req.Method = "GET"
	if got := x.route(); got.op != "renameConversation" || got.area != "conversations" || x.param("conversation_id") != "c 1" {
		t.Errorf("route got %q in %q with %v, want renameConversation in conversations with id \"c 1\"", got.op, got.area, got.params)
	}
	if !x.is(opTitledConversation) || x.is(opListConversations) {
		t.Error("is: wrong answer for renameConversation")
	}
	out := &Exchange{Client: httptest.NewRequest("GET", "/admin/state", nil)}
	if got := out.route(); got.op != "" || got.kin != nil || out.is(opListConversations) {
		t.Errorf("a path outside the contract routed to %q", got.op)
	}
}

func TestOpsAfterInitPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ops after initialisation did not panic")
		}
	}()
	ops("listModels")
}
