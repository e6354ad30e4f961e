package refmodel_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"contractkit/conformance/refmodel"
	"contractkit/judge"
)

// Hand-written exchanges: a right answer passes, a wrong one is a finding
// at the field that is wrong, with the rule and the class its mark gives.

// ok decodes a success body.
func ok(t *testing.T, body string) refmodel.Answer {
	t.Helper()
	return answer(t, 200, body)
}

func answer(t *testing.T, status int, body string) refmodel.Answer {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("test body: %v", err)
	}
	return refmodel.Answer{Status: status, Body: v}
}

// clean observes an exchange that must pass.
func clean(t *testing.T, m *refmodel.Model, c refmodel.Call, a refmodel.Answer) {
	t.Helper()
	v := m.Observe(c, a)
	for _, f := range append(v.Findings, v.Timing...) {
		t.Fatalf("%s: unexpected finding %s (%s)", c.Op, f, f.Class)
	}
}

// wantFinding observes an exchange that must break a prediction at ptr.
func wantFinding(t *testing.T, m *refmodel.Model, c refmodel.Call, a refmodel.Answer, ptr, rule string, class judge.Class) refmodel.Verdict {
	t.Helper()
	v := m.Observe(c, a)
	for _, f := range v.Findings {
		if f.Pointer == ptr && strings.HasPrefix(f.Rule, rule) {
			if f.Class != class {
				t.Fatalf("%s: %s is %s, want %s", c.Op, f, f.Class, class)
			}
			return v
		}
	}
	t.Fatalf("%s: no finding %s at %s among %v", c.Op, rule, ptr, v.Findings)
	return v
}

func fresh(frozen bool) *refmodel.Model {
	return refmodel.New(refmodel.Config{Closed: true, Frozen: frozen})
}

const (
	ts0 = `"2026-03-01T08:00:00Z"`
	ts1 = `"2026-03-01T08:00:05Z"`
)

// world makes dataset 1, ready model 2 and a conversation of it in
// account A.
func world(t *testing.T, m *refmodel.Model) {
	t.Helper()
	clean(t, m, refmodel.Call{Op: "createDataset", Key: refmodel.KeyA, Form: &refmodel.Form{Fields: map[string][]string{"dataset_name": {"Handbook"}},
		Files: []refmodel.File{{Field: "files", Name: "a.txt", Content: []byte("Leave is 25 days a year.")}}}},
		ok(t, `{"status":"success","data":{"id":1,"name":"Handbook","size":24,"description":"","type":"text","rows":1,"uploaded_at":`+ts0+`,"created_at":`+ts0+`,"updated_at":`+ts0+`,"file_count":1,"failed_files":[]}}`))
	clean(t, m, refmodel.Call{Op: "createModel", Key: refmodel.KeyA, Body: map[string]any{"model_name": "Helper", "dataset_id": "1"}},
		ok(t, `{"status":"success","data":{"id":2,"name":"Helper","dataset_id":1,"status":"pending","graph_status":"pending","graph_build_progress":0,"fine_tuning_status":false,"metrics":null,"trained_at":null,"created_at":`+ts0+`,"updated_at":`+ts0+`}}`))
	m.Advance()
	clean(t, m, refmodel.Call{Op: "getModel", Key: refmodel.KeyA, Path: map[string]string{"model_id": "2"}},
		ok(t, `{"status":"success","data":{"id":2,"name":"Helper","dataset_id":1,"status":"ready","graph_status":"ready","graph_build_progress":100,"fine_tuning_status":true,"token_speed":40.5,"metrics":{"accuracy":0.9,"loss":0.2,"validationAccuracy":0.8,"trainingTime":"10s","epochsCompleted":3,"parametersOptimized":"8M"},"dataset_info":{"name":"Handbook","size":24,"samples":1,"data_type":"text","updated_at":`+ts0+`},"trained_at":`+ts1+`,"created_at":`+ts0+`,"updated_at":`+ts1+`}}`))
	clean(t, m, refmodel.Call{Op: "createConversation", Key: refmodel.KeyA, Body: map[string]any{"model_id": json.Number("2"), "title": "Leave"}},
		ok(t, `{"status":"success","data":{"id":"3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77","model_id":2,"title":"Leave","total_messages":0,"message":"","message_timestamp":null,"created_at":`+ts1+`,"updated_at":`+ts1+`}}`))
}

func TestStoredAndComputedFields(t *testing.T) {
	m := fresh(true)
	world(t, m)
	get := refmodel.Call{Op: "getModel", Key: refmodel.KeyA, Path: map[string]string{"model_id": "2"}}
	readyModel := `{"status":"success","data":{"id":2,"name":%s,"dataset_id":1,"status":"ready","graph_status":"ready","graph_build_progress":100,"fine_tuning_status":%s,"token_speed":%s,"metrics":{"accuracy":0.9,"loss":0.2,"validationAccuracy":0.8,"trainingTime":"10s","epochsCompleted":3,"parametersOptimized":"8M"},"dataset_info":{"name":"Handbook","size":24,"samples":1,"data_type":"text","updated_at":` + ts0 + `},"trained_at":` + ts1 + `,"created_at":` + ts0 + `,"updated_at":` + ts1 + `}}`
	fill := func(name, tuned, speed string) string {
		s := strings.Replace(readyModel, "%s", name, 1)
		s = strings.Replace(s, "%s", tuned, 1)
		return strings.Replace(s, "%s", speed, 1)
	}
	clean(t, m, get, ok(t, fill(`"  Helper "`, "true", "40.5")))
	wantFinding(t, m, get, ok(t, fill(`"Helpers"`, "true", "40.5")), "/data/name", "stored", judge.Declared)
	wantFinding(t, m, get, ok(t, fill(`"Helper"`, "false", "40.5")), "/data/fine_tuning_status", "by-state", judge.Decided)
	wantFinding(t, m, get, ok(t, fill(`"Helper"`, "true", "12")), "/data/token_speed", "latitude", judge.Decided)

	list := refmodel.Call{Op: "listConversations", Key: refmodel.KeyA, Query: query("model_id", "2")}
	wantFinding(t, m, list, ok(t, `{"status":"success","data":[{"id":"3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77","model_id":2,"title":"Leave","total_messages":3,"message":"","message_timestamp":null,"created_at":`+ts1+`,"updated_at":`+ts1+`}]}`),
		"/data/0/total_messages", "count", judge.Decided)
	wantFinding(t, m, list, ok(t, `{"status":"success","data":[{"id":"3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77","model_id":2,"title":"Leave","total_messages":0,"message":"","message_timestamp":null,"created_at":`+ts0+`,"updated_at":`+ts1+`}]}`),
		"/data/0/created_at", "time", judge.Decided)
}

func TestAnInferenceReachesItsConversation(t *testing.T) {
	m := fresh(true)
	world(t, m)
	ask := refmodel.Call{Op: "runInference", Key: refmodel.KeyA, Body: map[string]any{"query": "How long is leave?", "model_id": json.Number("2"), "conversation_id": "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77"}}
	clean(t, m, ask, refmodel.Answer{Status: 200, Stream: &refmodel.Stream{Text: "25 days.", Complete: true,
		Done: map[string]any{"conversation_id": "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77", "thread_id": "t-9", "tokens_used": json.Number("2"), "latency_ms": json.Number("5")}}})
	msgs := refmodel.Call{Op: "listMessages", Key: refmodel.KeyA, Path: map[string]string{"conversation_id": "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77"}}
	clean(t, m, msgs, ok(t, `{"status":"success","data":[{"id":"m-1","role":"user","content":"How long is leave?"},{"id":"m-2","role":"assistant","content":"25 days."}]}`))
	wantFinding(t, m, msgs, ok(t, `{"status":"success","data":[{"id":"m-1","role":"user","content":"How long is leave?"},{"id":"m-2","role":"assistant","content":"25 days"}]}`),
		"/data/1/content", "item", judge.Decided)
	list := refmodel.Call{Op: "listConversations", Key: refmodel.KeyA, Query: query("model_id", "2")}
	wantFinding(t, m, list, ok(t, `{"status":"success","data":[{"id":"3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77","model_id":2,"title":"Leave","total_messages":0,"message":"25 days.","message_timestamp":`+ts1+`,"created_at":`+ts1+`,"updated_at":`+ts1+`}]}`),
		"/data/0/total_messages", "count", judge.Decided)
	// A stream whose done chunk lost the thread id the server chose.
	wantFinding(t, m, refmodel.Call{Op: "runInference", Key: refmodel.KeyA, Body: map[string]any{"query": "Again?", "model_id": json.Number("2")}},
		refmodel.Answer{Status: 200, Stream: &refmodel.Stream{Text: "Yes.", Complete: true, Done: map[string]any{"tokens_used": json.Number("1")}}},
		"stream:done/thread_id", "echo", judge.Decided)
}

func TestWhatAStateAllows(t *testing.T) {
	for _, frozen := range []bool{true, false} {
		m := fresh(frozen)
		world(t, m)
		clean(t, m, refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": "Weekly", "model_id": json.Number("2")}},
			ok(t, `{"status":"success","data":{"id":5,"name":"Weekly","type":"ragas","model_id":2,"question_count":10,"description":"","benchmark_type":"beir","status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"user_model":null,"created_at":`+ts1+`,"updated_at":`+ts1+`,"started_at":null,"completed_at":null,"results":null}}`))
		start := refmodel.Call{Op: "startEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": "5"}}
		clean(t, m, start, ok(t, `{"status":"success","data":{"message":"started","model_id":2}}`))
		del := refmodel.Call{Op: "deleteEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": "5"}}
		v := m.Observe(del, ok(t, `{"status":"success","data":{"message":"deleted","id":"5"}}`))
		// Frozen, the evaluation is still running: the delete breaks §3.1.
		// Unfrozen, it may have finished: the break waits for a replay.
		got := v.Findings
		if !frozen {
			got = v.Timing
			if len(v.Findings) != 0 {
				t.Fatalf("unfrozen: %v stand without a replay", v.Findings)
			}
		}
		if len(got) != 1 || got[0].Rule != "state" || got[0].Clause != "3.1" || got[0].Class != judge.Declared {
			t.Fatalf("frozen=%v: got %v, want one declared state finding of §3.1", frozen, got)
		}
	}
}

func TestIdentitiesAndKeys(t *testing.T) {
	m := fresh(true)
	world(t, m)
	near := m.NearMisses("model_id", refmodel.KeyA)
	if len(near) == 0 {
		t.Fatal("no near misses of a real model id")
	}
	get := refmodel.Call{Op: "getModel", Key: refmodel.KeyA, Path: map[string]string{"model_id": near[0]}}
	if e := m.Expect(get); e.Success || len(e.Refusals) != 1 || !e.Refusals[0].Must || e.Refusals[0].Codes[0] != 404 {
		t.Fatalf("expectation of a near-miss id: %+v", e)
	}
	wantFinding(t, m, get, ok(t, `{"status":"success","data":{"id":2,"name":"Helper"}}`), "status", "gone", judge.Declared)
	other := refmodel.Call{Op: "getModel", Key: refmodel.KeyB, Path: map[string]string{"model_id": "2"}}
	wantFinding(t, m, other, ok(t, `{"status":"success","data":{"id":2,"name":"Helper"}}`), "status", "gone", judge.Declared)
	bad := refmodel.Call{Op: "listModels", Key: refmodel.KeyBad}
	wantFinding(t, m, bad, ok(t, `{"status":"success","data":[]}`), "status", "auth", judge.Declared)
	wantFinding(t, m, bad, answer(t, 403, `{"status":"error","message":"no"}`), "status", "status-code", judge.Declared)
	clean(t, m, bad, answer(t, 401, `{"status":"error","message":"no"}`))
}

func TestRefusalsOfValidRequests(t *testing.T) {
	m := fresh(true)
	world(t, m)
	ask := func(extra map[string]any) refmodel.Call {
		b := map[string]any{"query": "How long is leave?", "model_id": json.Number("2")}
		for k, v := range extra {
			b[k] = v
		}
		return refmodel.Call{Op: "runInference", Key: refmodel.KeyA, Body: b, Accept: "application/json"}
	}
	result := ok(t, `{"status":"success","data":{"response":"25 days.","thread_id":"t","tokens_used":2,"latency_ms":1}}`)
	refused := answer(t, 422, `{"status":"error","message":"no"}`)
	// A query text never accepted may meet a limit the reference does not show.
	wantFinding(t, m, ask(map[string]any{"response_length_preference": "detailed"}), refused, "status", "refused-valid", judge.Noted)
	clean(t, m, ask(nil), result)
	// Accepted once, the text is no longer a limit: refusing a value the
	// reference names is a declared break.
	wantFinding(t, m, ask(map[string]any{"response_length_preference": "detailed"}), refused, "status", "refused-valid", judge.Declared)
	wantFinding(t, m, ask(map[string]any{"temperature": json.Number("1")}), refused, "status", "refused-valid", judge.Declared)
	// An unknown range (top_k): a report.
	wantFinding(t, m, ask(map[string]any{"top_k": json.Number("7")}), refused, "status", "refused-valid", judge.Noted)
	// Outside the stated range, the refusal is due.
	clean(t, m, ask(map[string]any{"temperature": json.Number("1.5")}), refused)
	wantFinding(t, m, ask(map[string]any{"temperature": json.Number("1.5")}), result, "status", "request", judge.Declared)
}

func TestLostAnswersTeachNothing(t *testing.T) {
	m := fresh(true)
	world(t, m)
	create := refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": "Lost", "model_id": json.Number("2")}}
	for _, status := range []int{0, 429, 500, 503} {
		a := refmodel.Answer{Status: status}
		if status == 429 {
			a = answer(t, 429, `{"status":"error","message":"slow down"}`) // a 429 is the error envelope (§7)
		}
		if v := m.Observe(create, a); len(v.Findings)+len(v.Timing) != 0 {
			t.Fatalf("%d: %v", status, v.Findings)
		}
	}
	// A 429 that is not the envelope is judged, and teaches nothing either.
	wantFinding(t, m, create, refmodel.Answer{Status: 429, Body: "Too Many Requests"}, "body", "json", judge.Declared)
	// Four creates may have made an evaluation: a list showing one the
	// model never saw is no break, and the name may now be taken.
	if e := m.Expect(refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": "LOST", "model_id": json.Number("2")}}); !e.Success || len(e.Refusals) != 1 || e.Refusals[0].Must {
		t.Fatalf("a name a lost create sent: %+v", e)
	}
	clean(t, m, refmodel.Call{Op: "listEvaluations", Key: refmodel.KeyA},
		ok(t, `{"status":"success","data":{"evaluations":[{"id":9,"name":"Lost","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`}],"page":1,"per_page":20,"total":1}}`))
	wantFinding(t, m, refmodel.Call{Op: "getEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": "9"}},
		ok(t, `{"status":"success","data":{"id":9,"name":"Found","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`}}`),
		"/data/name", "stored", judge.Decided)
}

func TestUploadAccounting(t *testing.T) {
	m := fresh(true)
	world(t, m)
	up := refmodel.Call{Op: "uploadDatasetFiles", Key: refmodel.KeyA, Form: &refmodel.Form{Fields: map[string][]string{"dataset_id": {"1"}},
		Files: []refmodel.File{{Field: "files", Name: "b.txt", Content: []byte("Remote work is fine.")}, {Field: "files", Name: "empty.txt"}}}}
	wantFinding(t, m, up, ok(t, `{"status":"success","data":{"success":true,"dataset_id":1,"failed_files":["empty.txt"],"files_uploaded":1,"files_failed":1,"total_size":25}}`),
		"/data/total_size", "parts", judge.Decided)
	get := refmodel.Call{Op: "getDataset", Key: refmodel.KeyA, Path: map[string]string{"dataset_id": "1"}}
	clean(t, m, get, ok(t, `{"status":"success","data":{"id":1,"name":"Handbook","size":44,"description":"","type":"text","rows":2,"uploaded_at":`+ts1+`,"created_at":`+ts0+`,"updated_at":`+ts1+`,"file_count":2}}`))
	wantFinding(t, m, get, ok(t, `{"status":"success","data":{"id":1,"name":"Handbook","size":44,"description":"","type":"text","rows":2,"uploaded_at":`+ts1+`,"created_at":`+ts0+`,"updated_at":`+ts0+`,"file_count":1}}`),
		"/data/file_count", "count", judge.Decided)
}

func TestListsAndNames(t *testing.T) {
	m := fresh(true)
	world(t, m)
	for i, name := range []string{"First", "Second"} {
		id := json.Number(string(rune('5' + i)))
		clean(t, m, refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": name, "model_id": json.Number("2")}},
			ok(t, `{"status":"success","data":{"id":`+string(id)+`,"name":"`+name+`","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`}}`))
	}
	ev := func(id, name string) string {
		return `{"id":` + id + `,"name":"` + name + `","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":` + ts1 + `,"updated_at":` + ts1 + `}`
	}
	list := refmodel.Call{Op: "listEvaluations", Key: refmodel.KeyA}
	clean(t, m, list, ok(t, `{"status":"success","data":{"evaluations":[`+ev("6", "Second")+`,`+ev("5", "First")+`],"page":1,"per_page":20,"total":2}}`))
	wantFinding(t, m, list, ok(t, `{"status":"success","data":{"evaluations":[`+ev("5", "First")+`,`+ev("6", "Second")+`],"page":1,"per_page":20,"total":2}}`),
		"/data/evaluations", "list:page", judge.Decided)
	wantFinding(t, m, list, ok(t, `{"status":"success","data":{"evaluations":[`+ev("6", "Second")+`,`+ev("5", "First")+`],"page":1,"per_page":20,"total":1}}`),
		"/data/total", "total", judge.Decided)
	wantFinding(t, m, refmodel.Call{Op: "listModels", Key: refmodel.KeyA}, ok(t, `{"status":"success","data":[]}`), "/data", "list:complete", judge.Declared)
	check := refmodel.Call{Op: "checkEvaluationName", Key: refmodel.KeyA, Query: query("name", " first")}
	wantFinding(t, m, check, ok(t, `{"status":"success","data":{"valid":true,"available":true,"message":"free"}}`), "/data/available", "name", judge.Decided)
	clean(t, m, check, ok(t, `{"status":"success","data":{"valid":true,"available":false,"message":"taken"}}`))
	taken := refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": "SECOND", "model_id": json.Number("2")}}
	wantFinding(t, m, taken, ok(t, `{"status":"success","data":{"id":8,"name":"SECOND","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`}}`),
		"status", "unique", judge.Decided)
}

func TestUnansweredWritesAreLearnedAgain(t *testing.T) {
	m := fresh(true)
	world(t, m)
	conv := "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77"
	clean(t, m, refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": "Weekly", "model_id": json.Number("2")}},
		ok(t, `{"status":"success","data":{"id":5,"name":"Weekly","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`}}`))
	for _, c := range []refmodel.Call{
		{Op: "updateEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": "5"}, Body: map[string]any{"name": "Monthly"}},
		{Op: "startEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": "5"}},
		{Op: "runInference", Key: refmodel.KeyA, Body: map[string]any{"query": "Leave?", "model_id": json.Number("2"), "conversation_id": conv}},
		{Op: "deleteModel", Key: refmodel.KeyA, Path: map[string]string{"model_id": "2"}},
	} {
		if v := m.Observe(c, refmodel.Answer{Status: 502}); len(v.Findings) > 0 {
			t.Fatalf("%s: %v", c.Op, v.Findings)
		}
	}
	// Whatever the lost calls did is learned, not judged: the name either
	// way, a run or none, two messages or none, the model there or gone.
	clean(t, m, refmodel.Call{Op: "getEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": "5"}},
		ok(t, `{"status":"success","data":{"id":5,"name":"Monthly","type":"ragas","model_id":2,"status":"completed","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`,"started_at":`+ts1+`,"completed_at":`+ts1+`,"results":{"scores":{"faithfulness":1}}}}`))
	clean(t, m, refmodel.Call{Op: "listConversations", Key: refmodel.KeyA, Query: query("model_id", "2")},
		ok(t, `{"status":"success","data":[{"id":"`+conv+`","model_id":2,"title":"Leave","total_messages":2,"message":"25 days.","message_timestamp":`+ts1+`,"created_at":`+ts1+`,"updated_at":`+ts1+`}]}`))
	clean(t, m, refmodel.Call{Op: "getModel", Key: refmodel.KeyA, Path: map[string]string{"model_id": "2"}}, answer(t, 404, `{"status":"error","message":"gone"}`))
	// Once learned, they are judged again.
	wantFinding(t, m, refmodel.Call{Op: "getEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": "5"}},
		ok(t, `{"status":"success","data":{"id":5,"name":"Weekly","type":"ragas","model_id":2,"status":"completed","model":{"id":2,"name":"Helper","status":null},"created_at":`+ts1+`,"updated_at":`+ts1+`,"started_at":`+ts1+`,"completed_at":`+ts1+`,"results":{"scores":{"faithfulness":1}}}}`),
		"/data/name", "stored", judge.Decided)
}

func TestAJSONAnswerReachesItsConversation(t *testing.T) {
	m := fresh(true)
	world(t, m)
	conv := "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77"
	ask := refmodel.Call{Op: "runInference", Key: refmodel.KeyA, Accept: "application/json",
		Body: map[string]any{"query": "How long is leave?", "model_id": json.Number("2"), "conversation_id": conv, "max_tokens": json.Number("3")}}
	if got := m.Expect(ask).Statuses(); len(got) != 1 || got[0] != 200 {
		t.Fatalf("statuses of a valid inference: %v", got)
	}
	wantFinding(t, m, ask, ok(t, `{"status":"success","data":{"response":"25 days off.","conversation_id":"`+conv+`","thread_id":"t","tokens_used":4,"latency_ms":3}}`),
		"/data/tokens_used", "tokens", judge.Decided)
	wantFinding(t, m, refmodel.Call{Op: "listConversations", Key: refmodel.KeyA, Query: query("model_id", "2")},
		ok(t, `{"status":"success","data":[{"id":"`+conv+`","model_id":2,"title":"Leave","total_messages":2,"message":"25 days","message_timestamp":`+ts1+`,"created_at":`+ts1+`,"updated_at":`+ts1+`}]}`),
		"/data/0/message", "last", judge.Decided)
	if got := m.Expect(refmodel.Call{Op: "getModel", Key: refmodel.KeyNone, Path: map[string]string{"model_id": "2"}}).Statuses(); len(got) != 1 || got[0] != 401 {
		t.Fatalf("statuses without a key: %v", got)
	}
}

// A text of the shape a server took is no limit: the same characters, no
// longer, digits standing for any digit (a client stamps unique numbers on
// names; "leave 80" taken, "leave 42" is of its shape, "leave #1" and a
// longer text are not).
func TestAnAcceptedTextsShapeCountsDigitsAsOne(t *testing.T) {
	m := fresh(true)
	world(t, m)
	ask := func(query string) refmodel.Call {
		return refmodel.Call{Op: "runInference", Key: refmodel.KeyA, Accept: "application/json",
			Body: map[string]any{"query": query, "model_id": json.Number("2")}}
	}
	result := ok(t, `{"status":"success","data":{"response":"25 days.","thread_id":"t","tokens_used":2,"latency_ms":1}}`)
	refused := answer(t, 422, `{"status":"error","message":"no"}`)
	clean(t, m, ask("leave 80"), result)
	wantFinding(t, m, ask("leave 42"), refused, "status", "refused-valid", judge.Declared)
	wantFinding(t, m, ask("leave #1"), refused, "status", "refused-valid", judge.Noted)
	wantFinding(t, m, ask("leave 4242"), refused, "status", "refused-valid", judge.Noted)
}

// A request spelt otherwise than plainly — a charset on its media type, the
// type in another case, an Accept list — is the request a server took
// plainly (D-49, the seed's JSON over HTTP): refusing it is a declared
// break, whatever the operation's own success rests on (an evaluation's
// update rests on a decision).
func TestARefusedEncodingIsDeclared(t *testing.T) {
	m := fresh(true)
	world(t, m)
	clean(t, m, refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": "Weekly", "model_id": json.Number("2")}},
		ok(t, `{"status":"success","data":{"id":5,"name":"Weekly","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`}}`))
	update := func(name, ctype string) refmodel.Call {
		return refmodel.Call{Op: "updateEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": "5"}, Body: map[string]any{"name": name}, ContentType: ctype}
	}
	refused := answer(t, 400, `{"status":"error","message":"Content-Type must be application/json"}`)
	updated := func(name string) refmodel.Answer {
		return ok(t, `{"status":"success","data":{"id":5,"name":"`+name+`","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`}}`)
	}
	clean(t, m, update("Weekly 1", ""), updated("Weekly 1"))
	for _, ct := range []string{"application/json; charset=utf-8", "Application/JSON"} {
		wantFinding(t, m, update("Weekly 2", ct), refused, "status", "refused-valid", judge.Declared)
	}
	// Spelt plainly, a refusal keeps the class of what the success rests on.
	wantFinding(t, m, update("Weekly 2", "application/json"), refused, "status", "refused-valid", judge.Decided)
}

// The list filter's name is decided (D-05); filtering by status is the
// seed's (§3.1 rule 2). A server seen to filter by the name, that lists an
// evaluation of another status under it, breaks the declared rule; before
// it was seen filtering, the difference may be the name's.
func TestAHonouredFiltersBreakIsDeclared(t *testing.T) {
	m := fresh(true)
	world(t, m)
	for i, name := range []string{"First", "Second"} {
		id := string(rune('5' + i))
		clean(t, m, refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": name, "model_id": json.Number("2")}},
			ok(t, `{"status":"success","data":{"id":`+id+`,"name":"`+name+`","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":`+ts1+`,"updated_at":`+ts1+`}}`))
	}
	ev := `{"id":5,"name":"First","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":` + ts1 + `,"updated_at":` + ts1 + `}`
	by := func(status string) refmodel.Call {
		return refmodel.Call{Op: "listEvaluations", Key: refmodel.KeyA, Query: query("status", status)}
	}
	wrong := ok(t, `{"status":"success","data":{"evaluations":[`+ev+`],"page":1,"per_page":20,"total":1}}`)
	wantFinding(t, m, by("failed"), wrong, "/data/evaluations/0/status", "list:filter", judge.Decided)
	// Filtered by status: no running evaluation, the two pending left out.
	clean(t, m, by("running"), ok(t, `{"status":"success","data":{"evaluations":[],"page":1,"per_page":20,"total":0}}`))
	wantFinding(t, m, by("failed"), wrong, "/data/evaluations/0/status", "list:filter", judge.Declared)
}

// TestAWalkShowsARecordOnTwoPages: a record on two pages of one walk is
// listed twice (declared: each record once), once the server was seen to
// page by the walk's size; a server that ignores the paging parameters
// (their names are decided) repeats its page, and that is no finding.
func TestAWalkShowsARecordOnTwoPages(t *testing.T) {
	m := fresh(true)
	world(t, m)
	ev := func(id string) string {
		return `{"id":` + id + `,"name":"E` + id + `","type":"ragas","model_id":2,"status":"pending","model":{"id":2,"name":"Helper","status":"ready"},"created_at":` + ts1 + `,"updated_at":` + ts1 + `}`
	}
	for _, id := range []string{"5", "6", "7"} {
		clean(t, m, refmodel.Call{Op: "createEvaluation", Key: refmodel.KeyA, Body: map[string]any{"name": "E" + id, "model_id": json.Number("2")}},
			ok(t, `{"status":"success","data":`+ev(id)+`}`))
	}
	page := func(n int) refmodel.Call {
		return refmodel.Call{Op: "listEvaluations", Key: refmodel.KeyA, Query: url.Values{"page": {strconv.Itoa(n)}, "per_page": {"2"}}}
	}
	body := func(n int, perPage string, ids ...string) refmodel.Answer {
		var items []string
		for _, id := range ids {
			items = append(items, ev(id))
		}
		return ok(t, `{"status":"success","data":{"evaluations":[`+strings.Join(items, ",")+`],"page":`+strconv.Itoa(n)+`,"per_page":`+perPage+`,"total":3}}`)
	}
	twice := func(v refmodel.Verdict) bool {
		return slices.ContainsFunc(v.Findings, func(f judge.Finding) bool { return strings.HasPrefix(f.Rule, "list:twice") })
	}
	// A first walk: the scope is known whole from its end.
	clean(t, m, page(1), body(1, "2", "7", "6"))
	clean(t, m, page(2), body(2, "2", "5"))
	// Paging ignored: the same page each time, per_page not the one sent.
	m.Observe(page(1), body(1, "20", "7", "6", "5"))
	if v := m.Observe(page(2), body(1, "20", "7", "6", "5")); twice(v) {
		t.Errorf("a server ignoring the paging parameters: %v", v.Findings)
	}
	// A page one too long: 5 on page 1 and again on page 2.
	m.Observe(page(1), body(1, "2", "7", "6", "5"))
	wantFinding(t, m, page(2), body(2, "2", "5"), "/data/evaluations", "list:twice", judge.Declared)
}

// TestADefaultDeleteThatErasesBreaksTheSoftDefault: the delete's
// `permanent` echo for a call without the flag is the decision's (D-07)
// until the server is seen to echo the flag as sent both ways; from then
// on `permanent: true` by default says the server erased what §3.3 makes
// a soft delete by default.
func TestADefaultDeleteThatErasesBreaksTheSoftDefault(t *testing.T) {
	m := fresh(true)
	world(t, m)
	for _, id := range []string{"4", "5", "6", "7"} {
		clean(t, m, refmodel.Call{Op: "createDataset", Key: refmodel.KeyA, Form: &refmodel.Form{Fields: map[string][]string{"dataset_name": {"D" + id}},
			Files: []refmodel.File{{Field: "files", Name: "a.txt", Content: []byte("Leave is 25 days a year.")}}}},
			ok(t, `{"status":"success","data":{"id":`+id+`,"name":"D`+id+`","size":24,"description":"","type":"text","rows":1,"uploaded_at":`+ts0+`,"created_at":`+ts0+`,"updated_at":`+ts0+`,"file_count":1,"failed_files":[]}}`))
	}
	del := func(id string, q url.Values) refmodel.Call {
		return refmodel.Call{Op: "deleteDataset", Key: refmodel.KeyA, Path: map[string]string{"dataset_id": id}, Query: q}
	}
	gone := func(id, permanent string) refmodel.Answer {
		return ok(t, `{"status":"success","data":{"message":"Dataset deleted","id":"`+id+`","permanent":`+permanent+`}}`)
	}
	wantFinding(t, m, del("4", nil), gone("4", "true"), "/data/permanent", "echo", judge.Decided)
	clean(t, m, del("5", url.Values{"permanent": {"true"}}), gone("5", "true"))
	clean(t, m, del("6", url.Values{"permanent": {"false"}}), gone("6", "false"))
	wantFinding(t, m, del("7", nil), gone("7", "true"), "/data/permanent", "echo", judge.Declared)
}
