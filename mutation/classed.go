package mutation

import (
	"encoding/json"
	"net/http"
)

// classed are mutants of a declared rule that only a check of another
// class meets, or only an answer no check judges: a SHOULD check's list,
// a poll while a state moves on, the reference model's part. A suite that
// takes a finding's class from the check that saw it, or judges only the
// answers a check asks about, lets them pass; one that judges every answer
// it reads by the rule the answer breaks fails them (§2.4, §2.8).
var classed = []Mutant{
	{Name: "status-filtered-list-outside-the-four", Area: "evaluations",
		Breaks: "a list filtered by status and read 100 a page (a SHOULD check's request) shows an evaluation in state \"queued\", none of §2.8's four",
		Answer: onOperation(opListEvaluations, jsonAnswer(func(x *Exchange, status int, v any) any {
			q := x.Client.URL.Query()
			if status != 200 || q.Get("status") == "" || q.Get("per_page") != "100" {
				return v
			}
			if items, _ := dig(dig(v, "data"), "evaluations").([]any); len(items) > 0 {
				if m, ok := items[0].(map[string]any); ok {
					m["status"] = "queued"
				}
			}
			return v
		}))},
	{Name: "running-read-as-in-progress", Area: "evaluations",
		Breaks: "an evaluation read by id while it runs says \"in_progress\", none of §2.8's four (only polls and the model read it then)",
		Answer: onOperation(opGetEvaluation, jsonAnswer(func(_ *Exchange, status int, v any) any {
			if m, ok := dig(v, "data").(map[string]any); ok && status == 200 && m["status"] == "running" {
				m["status"] = "in_progress"
			}
			return v
		}))},
	{Name: "latest-message-an-object", Area: "conversations",
		Breaks: "a listed conversation with messages shows its latest message as an object {role, content}, not the string §2.4 declares",
		Answer: onOperation(opListConversations, jsonAnswer(func(_ *Exchange, status int, v any) any {
			items, _ := dig(v, "data").([]any)
			for _, it := range items {
				m, ok := it.(map[string]any)
				if !ok || status != 200 {
					continue
				}
				n, _ := m["total_messages"].(json.Number)
				if k, _ := n.Int64(); k >= 2 {
					if s, ok := m["message"].(string); ok {
						m["message"] = map[string]any{"role": "assistant", "content": s}
					}
				}
			}
			return v
		}))},

	// ---- a fact of the reference inside a decided row (issue 39) ----
	{Name: "model-delete-202", Area: "models",
		Breaks: "a model delete answers 202 Accepted with the same body: §4.1 says HTTP 200 on success (the success body is D-02's, the status is the seed's)",
		Answer: onOperation(opDeleteModel, onStatus(http.StatusOK, func(_ *Exchange, a *Answer) { a.Status = http.StatusAccepted }))},
}
