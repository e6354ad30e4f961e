package mockserver

import (
	"maps"
	"strings"
	"testing"

	"contractkit/mockserver/store"
	"contractkit/spec"
)

// TestDefaultsComeFromTheContract: the values the handlers fill in are the
// contract's own (today's values written out once here, so a change of the
// contract is a visible change of this test too).
func TestDefaultsComeFromTheContract(t *testing.T) {
	c := spec.Strict()
	d, err := readDefaults(c)
	if err != nil {
		t.Fatal(err)
	}
	// The lists the handlers page, by their place: the evaluations' list,
	// the conversations' list and a conversation's messages.
	evaluations, _ := c.OperationAt(spec.RoleList, "evaluation_id")
	conversations, _ := c.OperationAt(spec.RoleList, "conversation_id")
	messages, _ := c.OperationAt(spec.RoleChild, "conversation_id")
	for _, tc := range []struct {
		op   spec.Operation
		want map[string]pageParam
		why  string
	}{
		{evaluations, map[string]pageParam{"page": {"page", 1}, "size": {"per_page", 20}}, "D-05"},
		{conversations, map[string]pageParam{"size": {"limit", 50}, "offset": {"offset", 0}}, "D-06"},
		{messages, map[string]pageParam{"size": {"limit", 50}, "offset": {"offset", 0}}, "D-06"},
	} {
		if got := d.paging[tc.op.ID]; !maps.Equal(got, tc.want) {
			t.Errorf("%s pages %v, want %v (%s)", tc.op.ID, got, tc.want, tc.why)
		}
	}
	if len(d.paging) != 3 {
		t.Errorf("%d paged lists, want 3: %v", len(d.paging), d.paging)
	}
	if want := (store.EvaluationInput{Type: "ragas", BenchmarkType: "beir", QuestionCount: 10}); d.newEvaluation != want {
		t.Errorf("new evaluation %+v, want %+v (D-09)", d.newEvaluation, want)
	}
	if d.newConversationTitle != "" {
		t.Errorf("new conversation title %q, want empty (D-09)", d.newConversationTitle)
	}
}

// TestAContractWithoutADefaultStopsTheStart: a default the handlers need
// and the document no longer states is a start-up error naming it.
func TestAContractWithoutADefaultStopsTheStart(t *testing.T) {
	raw := strings.Replace(string(spec.Document), "default: 20,", "", 1)
	if raw == string(spec.Document) {
		t.Fatal("the contract no longer states per_page's default as this test expects")
	}
	c, err := spec.Build([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	_, err = readDefaults(c)
	if err == nil || !strings.Contains(err.Error(), "listEvaluations: query parameter per_page states no default") {
		t.Errorf("got %v, want the missing per_page default named", err)
	}
}

// TestOmittedFieldsGetTheDefaults: over HTTP, a create without the optional
// fields and a list without paging get what the contract states.
func TestOmittedFieldsGetTheDefaults(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	model := c.readyModel("defaults", fixtureFile(t, "employee-handbook.md")).ID
	var conv store.ConversationView
	c.post("/api/v1/user/conversations", map[string]any{"model_id": model}).want(t, 200).data(t, &conv)
	if conv.Title != "" {
		t.Errorf("title %q, want empty", conv.Title)
	}
	ev := c.createEvaluation(model, "defaults") // name and model only
	if ev.Type != "ragas" || ev.BenchmarkType != "beir" || ev.QuestionCount != 10 || ev.Description != "" {
		t.Errorf("evaluation %+v, want type ragas, benchmark beir, 10 questions, no description", ev)
	}
	if p := c.evaluations(""); p.PerPage != 20 || p.Page != 1 {
		t.Errorf("evaluations page %d per_page %d, want 1 and 20", p.Page, p.PerPage)
	}
}
