package conformance

import (
	"net/http"
	"slices"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/conformance/exchange"
	"contractkit/conformance/judge"
	"contractkit/fixtures"
)

// The isolation checks read seed §4.1's "the caller's account" (and §5's
// key, obtained by a user) as scoping every resource to the account whose
// key created it: a second account can neither see nor touch it. That a
// foreign id is answered 404, like an unknown one, is D-17.

// isolationSpecs registers the Isolation area. It is Ordered only to share
// the first account's resources, made once in BeforeAll; the checks do not
// depend on each other (ContinueOnFailure).
func (e *env) isolationSpecs() {
	Describe("Isolation", Label("isolation"), Ordered, ContinueOnFailure, func() {
		var model, dataset, conversation, evaluation string
		var conv, ev created
		BeforeAll(func(ctx SpecContext) {
			if e.cfg.APIKey2 == "" {
				return // every check skips, with the reason
			}
			model = e.readyModel(ctx)
			dataset = e.sharedDataset(ctx)
			// Ids are read tolerantly: the create answers are judged by
			// the Conversations and Evaluations areas; a check whose
			// resource was not created skips (need).
			conv = e.create(ctx, conversationRequest(model, e.name("thread")), pathConversations)
			conversation = conv.id
			ev = e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: evaluationBody(e.name("eval"), model)}, pathEvaluations)
			evaluation = ev.id
		})

		BeforeEach(func() {
			if e.cfg.APIKey2 == "" {
				Skip("the isolation checks need a second account: run with --api-key-2")
			}
		})

		// How the second account is answered. Each judge sends r as the
		// second account.
		//
		// refused: the refusal of a foreign id.
		refused := func(ctx SpecContext, r client.Request) {
			GinkgoHelper()
			r.Auth = client.AuthKey2
			e.expectNotFound(e.do(ctx, r))
		}
		// refusedAndKept: refused, and the first account still has the
		// resource at p afterwards.
		refusedAndKept := func(p func() string) func(SpecContext, client.Request) {
			return func(ctx SpecContext, r client.Request) {
				GinkgoHelper()
				refused(ctx, r)
				e.expectSuccess(e.do(ctx, client.Request{Method: http.MethodGet, Path: p()}))
			}
		}
		// unlisted: a refusal, or a list without the id; items finds the
		// list's records.
		unlisted := func(id *string, items func(judge.J) []judge.J) func(SpecContext, client.Request) {
			return func(ctx SpecContext, r client.Request) {
				GinkgoHelper()
				r.Auth = client.AuthKey2
				x := e.do(ctx, r)
				if x.Status/100 != 2 {
					e.expectNotFound(x)
					return
				}
				ids := judge.IDs(items(e.expectSuccess(x)))
				e.expectThat(x, !slices.Contains(ids, *id), "the second account's list shows %s", *id)
			}
		}
		// createRefused: a creation, refused (and removed if it was not).
		createRefused := func(collection string) func(SpecContext, client.Request) {
			return func(ctx SpecContext, r client.Request) {
				GinkgoHelper()
				r.Auth = client.AuthKey2
				e.expectNotFound(e.create(ctx, r, collection).x)
			}
		}
		// inferRefused: an inference, refused.
		inferRefused := func(ctx SpecContext, r client.Request) {
			GinkgoHelper()
			r.Auth = client.AuthKey2
			x, _ := e.infer(ctx, r)
			e.expectNotFound(x)
		}
		evaluations := func(d judge.J) []judge.J { return d.Get("evaluations").Items() }
		// Each row: the behaviour, the operation (its clause labels the
		// check), the resource made in BeforeAll the check needs, if any,
		// the request and how its answer is judged.
		rows := []struct {
			behaviour, op string
			need          *created
			req           func() client.Request
			judge         func(SpecContext, client.Request)
		}{
			{"MUST NOT let another account read a model", "getModel", nil,
				func() client.Request { return client.Request{Method: http.MethodGet, Path: at(pathModels, model)} }, refused},
			{"MUST NOT show a model in another account's list", "listModels", nil,
				func() client.Request { return client.Request{Method: http.MethodGet, Path: pathModels} }, unlisted(&model, judge.Records)},
			{"MUST NOT let another account delete a model", "deleteModel", nil,
				func() client.Request { return client.Request{Method: http.MethodDelete, Path: at(pathModels, model)} },
				refusedAndKept(func() string { return at(pathModels, model) })},
			{"MUST NOT let another account query a model", "runInference", nil,
				func() client.Request {
					return client.Request{Method: http.MethodPost, Path: pathInference, JSON: query(model, nil)}
				}, inferRefused},
			{"MUST NOT let another account build a model from a dataset", "createModel", nil,
				func() client.Request {
					return client.Request{Method: http.MethodPost, Path: pathModels,
						JSON: map[string]any{"model_name": e.name("model"), "dataset_id": dataset}}
				}, createRefused(pathModels)},

			{"MUST NOT let another account read a dataset", "getDataset", nil,
				func() client.Request { return client.Request{Method: http.MethodGet, Path: at(pathDatasets, dataset)} }, refused},
			{"MUST NOT show a dataset in another account's list", "listDatasets", nil,
				func() client.Request { return client.Request{Method: http.MethodGet, Path: pathDatasets} }, unlisted(&dataset, judge.J.Items)},
			{"MUST NOT let another account add files to a dataset", "uploadDatasetFiles", nil,
				func() client.Request {
					return client.Request{Method: http.MethodPost, Path: pathUpload, Form: &exchange.Form{
						Fields: []exchange.FormField{{Name: "dataset_id", Value: dataset}}, Files: []exchange.FormFile{fixtureFile("release-notes.txt")}}}
				}, refused},
			{"MUST NOT let another account delete a dataset", "deleteDataset", nil,
				func() client.Request {
					return client.Request{Method: http.MethodDelete, Path: at(pathDatasets, dataset)}
				},
				refusedAndKept(func() string { return at(pathDatasets, dataset) })},

			{"MUST NOT show a model's conversations to another account", "listConversations", &conv,
				func() client.Request { return listConversations(model, nil) }, unlisted(&conversation, judge.J.Items)},
			{"MUST NOT let another account open a conversation on a model", "createConversation", nil,
				func() client.Request { return conversationRequest(model, e.name("thread")) }, createRefused(pathConversations)},
			{"MUST NOT let another account rename a conversation", "renameConversation", &conv,
				func() client.Request {
					return client.Request{Method: http.MethodPatch, Path: at(pathConversations, conversation), JSON: map[string]any{"title": "taken over"}}
				}, refused},
			{"MUST NOT let another account read a conversation's messages", "listMessages", &conv,
				func() client.Request {
					return client.Request{Method: http.MethodGet, Path: at(pathConversations, conversation, "/messages")}
				}, refused},
			{"MUST NOT let another account delete a conversation", "deleteConversation", &conv,
				func() client.Request {
					return client.Request{Method: http.MethodDelete, Path: at(pathConversations, conversation)}
				},
				refusedAndKept(func() string { return at(pathConversations, conversation, "/messages") })},

			{"MUST NOT let another account read an evaluation", "getEvaluation", &ev,
				func() client.Request {
					return client.Request{Method: http.MethodGet, Path: at(pathEvaluations, evaluation)}
				}, refused},
			{"MUST NOT show an evaluation in another account's list", "listEvaluations", &ev,
				func() client.Request { return client.Request{Method: http.MethodGet, Path: pathEvaluations} }, unlisted(&evaluation, evaluations)},
			{"MUST NOT let another account update an evaluation", "updateEvaluation", &ev,
				func() client.Request {
					return client.Request{Method: http.MethodPut, Path: at(pathEvaluations, evaluation), JSON: map[string]any{"description": "taken over"}}
				}, refused},
			{"MUST NOT let another account start an evaluation", "startEvaluation", &ev,
				func() client.Request {
					return client.Request{Method: http.MethodPost, Path: at(pathEvaluations, evaluation, "/start")}
				}, refused},
			{"MUST NOT let another account run RAGAS on an evaluation", "runRagasEvaluation", &ev,
				func() client.Request {
					return client.Request{Method: http.MethodPost, Path: at(pathEvaluations, evaluation, "/run-ragas"), JSON: ragasBody(fixtures.RagasSamples()[:1])}
				}, refused},
			{"MUST NOT let another account delete an evaluation", "deleteEvaluation", &ev,
				func() client.Request {
					return client.Request{Method: http.MethodDelete, Path: at(pathEvaluations, evaluation)}
				},
				refusedAndKept(func() string { return at(pathEvaluations, evaluation) })},
			{"MUST NOT let another account evaluate a model", "createEvaluation", nil,
				func() client.Request {
					return client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: evaluationBody(e.name("eval"), model)}
				}, createRefused(pathEvaluations)},
		}
		whatOf := map[*created]string{&conv: "conversation", &ev: "evaluation"}
		for _, row := range rows {
			e.check(row.behaviour, declared("4.1.1", opClause(row.op), "D-17"), func(ctx SpecContext) {
				if row.need != nil {
					e.need(*row.need, whatOf[row.need])
				}
				row.judge(ctx, row.req())
			})
		}
	})
}
