package mockserver

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/mockserver/store"
	"contractkit/spec"
)

// TestDefaultsComeFromTheContract: the values the handlers fill in are the
// contract's own (today's values written out once here, so a change of the
// contract is a visible change of this test too).
func TestDefaultsComeFromTheContract(t *testing.T) {
	d, err := readDefaults(spec.Strict().Kin)
	if err != nil {
		t.Fatal(err)
	}
	if d.evaluations.page != 1 || d.evaluations.perPage != 20 {
		t.Errorf("evaluations page %d per_page %d, want 1 and 20 (D-05)", d.evaluations.page, d.evaluations.perPage)
	}
	for name, p := range map[string]struct{ limit, offset int }{"conversations": d.conversations, "messages": d.messages} {
		if p.limit != 50 || p.offset != 0 {
			t.Errorf("%s limit %d offset %d, want 50 and 0 (D-06)", name, p.limit, p.offset)
		}
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
	doc, err := openapi3.NewLoader().LoadFromData([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	_, err = readDefaults(doc)
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
