package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/fixtures"
	"contractkit/spec"
)

// opClauses maps each operation to its seed clause: §4.N.k is the k-th
// endpoint of section 4.N in the seed's order (see clauses.go).
var opClauses = map[string]string{
	"listModels": "4.1.1", "getModel": "4.1.2", "createModel": "4.1.3", "deleteModel": "4.1.4",
	"listConversations": "4.2.1", "createConversation": "4.2.2", "renameConversation": "4.2.3",
	"deleteConversation": "4.2.4", "listMessages": "4.2.5",
	"listDatasets": "4.3.1", "getDataset": "4.3.2", "createDataset": "4.3.3",
	"uploadDatasetFiles": "4.3.4", "deleteDataset": "4.3.5",
	"runInference":    "4.4.1",
	"listEvaluations": "4.5.1", "createEvaluation": "4.5.2", "getEvaluation": "4.5.3",
	"updateEvaluation": "4.5.4", "deleteEvaluation": "4.5.5", "checkEvaluationName": "4.5.6",
	"startEvaluation": "4.5.7", "runRagasEvaluation": "4.5.8",
}

// opTitle names an operation in check texts.
func opTitle(op spec.Operation) string {
	return fmt.Sprintf("%s %s (%s)", strings.ToUpper(op.Method), op.Path, op.ID)
}

// sampleRequest is a plausible request for op that the contract accepts:
// every path id set to an id no resource has, and a well-formed body.
func (e *env) sampleRequest(op spec.Operation) Request {
	p := op.Path
	for _, param := range []string{"{model_id}", "{dataset_id}", "{evaluation_id}"} {
		p = strings.ReplaceAll(p, param, e.unknownID)
	}
	p = strings.ReplaceAll(p, "{conversation_id}", e.unknownUUID())
	r := Request{Method: strings.ToUpper(op.Method), Path: p}
	unknown := jsonInt(e.unknownID)
	switch op.ID {
	case "createModel":
		r.JSON = map[string]any{"model_name": e.name("model"), "dataset_id": e.unknownID}
	case "listConversations":
		r.Query = url.Values{"model_id": {e.unknownID}}
	case "createConversation":
		r.JSON = map[string]any{"model_id": unknown, "title": "conformance"}
	case "renameConversation":
		r.JSON = map[string]any{"title": "renamed"}
	case "createDataset":
		r.Form = datasetForm(e.name("data"), "release-notes.txt")
	case "uploadDatasetFiles":
		r.Form = &Form{Fields: []FormField{{"dataset_id", e.unknownID}}, Files: []FormFile{fixtureFile("release-notes.txt")}}
	case "runInference":
		r.JSON = map[string]any{"query": "What is the standard warranty period?", "model_id": unknown}
	case "createEvaluation":
		r.JSON = evaluationBody(e.name("eval"), e.unknownID)
	case "checkEvaluationName":
		r.Query = url.Values{"name": {e.name("eval")}}
	case "updateEvaluation":
		r.JSON = map[string]any{"description": "updated by the conformance suite"}
	case "runRagasEvaluation":
		r.JSON = ragasBody(fixtures.RagasSamples()[:1])
	}
	return r
}

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

// authSpecs registers the Authentication area: every operation of the
// contract refuses a missing, unknown, other-scheme or empty key with 401
// and the error envelope (seed §5), and a valid key is accepted.
func (e *env) authSpecs() {
	Describe("Authentication", Label("auth"), func() {
		for _, op := range spec.Strict().Operations {
			clause := opClauses[op.ID]
			Describe(opTitle(op), func() {
				cases := []struct {
					behaviour string
					auth      Auth
					raw       func() string
					clauses   []string
				}{
					{"MUST answer 401 with the error envelope when the Authorization header is missing", AuthNone, nil, []string{"5.1", "5.3"}},
					{"MUST answer 401 with the error envelope when the bearer key is unknown", AuthRaw, func() string { return "Bearer ck-unknown-" + randomHex(12) }, []string{"5.3"}},
					{"MUST answer 401 with the error envelope when the key comes under another scheme than Bearer", AuthRaw, func() string { return "Token " + e.cfg.APIKey }, []string{"5.1", "5.3"}},
					{"MUST answer 401 with the error envelope when the bearer key is empty", AuthRaw, func() string { return "Bearer " }, []string{"5.3"}},
				}
				for _, c := range cases {
					e.check(c.behaviour, declared(append(c.clauses, "1.2", "7.1", clause)...), func(ctx SpecContext) {
						r := e.sampleRequest(op)
						r.Auth = c.auth
						if c.raw != nil {
							r.RawAuth = c.raw()
						}
						e.expectError(e.do(ctx, r), refusal{statuses: []int{http.StatusUnauthorized}})
					})
				}
			})
		}

		Describe("a valid key", func() {
			for _, op := range []string{"listModels", "listDatasets", "listEvaluations", "checkEvaluationName"} {
				op, _ := spec.Strict().Operation(op)
				e.check(fmt.Sprintf("MUST be accepted as `Authorization: Bearer <key>` on %s with a success envelope", opTitle(op)),
					declared("5.1", "1.1", opClauses[op.ID]), func(ctx SpecContext) {
						e.expectSuccess(e.do(ctx, e.sampleRequest(op)))
					})
			}
		})
	})
}
