package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"path"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/fixtures"
)

// Requests the checks of several areas send: the builders of bodies, forms
// and queries (a sample request of any operation is samples.go's).

// unknownUUID is a conversation id no conversation has (D-20: UUIDs).
func (e *env) unknownUUID() string {
	b := randomHex(16)
	// Version 4, variant 10.
	return b[0:8] + "-" + b[8:12] + "-4" + b[13:16] + "-a" + b[17:20] + "-" + b[20:32]
}

// ragasBody is a run-ragas body (element shapes D-10).
func ragasBody(samples []fixtures.RagasSample) map[string]any {
	list := make([]map[string]any, len(samples))
	questions := make([]string, len(samples))
	for i, s := range samples {
		list[i] = map[string]any{"question": s.Question, "answer": s.Answer, "contexts": s.Contexts, "ground_truth": s.GroundTruth}
		questions[i] = s.Question
	}
	return map[string]any{"samples": list, "selected_questions": questions}
}

// evaluationBody is a creation body for an evaluation of model.
func evaluationBody(name, model string) map[string]any {
	return map[string]any{
		"name": name, "type": "ragas", "model_id": jsonInt(model), "benchmark_type": "beir",
		"question_count": 3, "description": "conformance run evaluation",
	}
}

// jsonInt turns an id into the JSON integer the seed declares for body
// fields (model_id is an integer, §4.2, §4.4, §4.5); an id that is not a
// number is sent as the string it is.
func jsonInt(id string) any {
	var n int64
	if _, err := fmt.Sscan(id, &n); err == nil && fmt.Sprint(n) == id {
		return n
	}
	return id
}

// datasetForm is a dataset creation form: dataset_name and files.
func datasetForm(name string, files ...string) *exchange.Form {
	f := &exchange.Form{Fields: []exchange.FormField{{Name: "dataset_name", Value: name}, {Name: "description", Value: "conformance run data"}}}
	for _, n := range files {
		f.Files = append(f.Files, fixtureFile(n))
	}
	return f
}

// fixtureFile reads an upload file of contractkit/fixtures as a `files` part.
func fixtureFile(name string) exchange.FormFile {
	b, err := fixtures.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("conformance: fixture %s: %v", name, err))
	}
	return exchange.FormFile{Field: "files", Name: path.Base(name), Content: b, Source: "fixtures/files/" + name}
}

// conversationRequest creates a conversation bound to model.
func conversationRequest(model, title string) client.Request {
	return client.Request{Method: http.MethodPost, Path: pathConversations,
		JSON: map[string]any{"model_id": jsonInt(model), "title": title}}
}

// listConversations lists the conversations of model.
func listConversations(model string, extra url.Values) client.Request {
	q := url.Values{"model_id": {model}}
	for k, v := range extra {
		q[k] = v
	}
	return client.Request{Method: http.MethodGet, Path: pathConversations, Query: q}
}

// query is an inference body asking question of model, with extra fields.
func query(model string, extra map[string]any) map[string]any {
	body := map[string]any{"query": fixtures.Questions()[2].Question, "model_id": jsonInt(model)}
	for k, v := range extra {
		if v == nil {
			delete(body, k)
			continue
		}
		body[k] = v
	}
	return body
}

// checkName asks whether an evaluation name is valid and available.
func checkName(name string) client.Request {
	return client.Request{Method: http.MethodGet, Path: pathCheckName, Query: url.Values{"name": {name}}}
}
