package conformance

import (
	"net/http"
	"slices"

	. "github.com/onsi/ginkgo/v2"

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
			ev = e.create(ctx, Request{Method: http.MethodPost, Path: pathEvaluations, JSON: evaluationBody(e.name("eval"), model)}, pathEvaluations)
			evaluation = ev.id
		})

		BeforeEach(func() {
			if e.cfg.APIKey2 == "" {
				Skip("the isolation checks need a second account: run with --api-key-2")
			}
		})

		// refused sends r as the second account and expects the refusal
		// of a foreign id.
		refused := func(ctx SpecContext, r Request) {
			GinkgoHelper()
			r.Auth = AuthKey2
			x := e.do(ctx, r)
			e.expectNotFound(x)
		}
		// refusedAndKept also checks that the first account still has the
		// resource at p afterwards.
		refusedAndKept := func(ctx SpecContext, r Request, p string) {
			GinkgoHelper()
			refused(ctx, r)
			e.expectSuccess(e.do(ctx, Request{Method: http.MethodGet, Path: p}))
		}
		// unlisted lists as the second account: a refusal, or a list
		// without id.
		unlisted := func(ctx SpecContext, r Request, id string, items func(J) []J) {
			GinkgoHelper()
			r.Auth = AuthKey2
			x := e.do(ctx, r)
			if x.Status/100 != 2 {
				e.expectNotFound(x)
				return
			}
			ids := idsOf(items(e.expectSuccess(x)))
			e.expectThat(x, !slices.Contains(ids, id), "the second account's list shows %s", id)
		}
		// createRefused creates as the second account, which must be
		// refused (and is removed if it was not).
		createRefused := func(ctx SpecContext, r Request, collection string) {
			GinkgoHelper()
			r.Auth = AuthKey2
			e.expectNotFound(e.create(ctx, r, collection).x)
		}
		class := func(op string) Class { return declared("4.1.1", opClauses[op], "D-17") }
		evaluations := func(d J) []J { return d.Get("evaluations").Items() }

		e.check("MUST NOT let another account read a model", class("getModel"), func(ctx SpecContext) {
			refused(ctx, Request{Method: http.MethodGet, Path: at(pathModels, model)})
		})
		e.check("MUST NOT show a model in another account's list", class("listModels"), func(ctx SpecContext) {
			unlisted(ctx, Request{Method: http.MethodGet, Path: pathModels}, model, records)
		})
		e.check("MUST NOT let another account delete a model", class("deleteModel"), func(ctx SpecContext) {
			refusedAndKept(ctx, Request{Method: http.MethodDelete, Path: at(pathModels, model)}, at(pathModels, model))
		})
		e.check("MUST NOT let another account query a model", class("runInference"), func(ctx SpecContext) {
			r := Request{Method: http.MethodPost, Path: pathInference, JSON: query(model, nil), Auth: AuthKey2}
			x, _ := e.infer(ctx, r)
			e.expectNotFound(x)
		})
		e.check("MUST NOT let another account build a model from a dataset", class("createModel"), func(ctx SpecContext) {
			createRefused(ctx, Request{Method: http.MethodPost, Path: pathModels,
				JSON: map[string]any{"model_name": e.name("model"), "dataset_id": dataset}}, pathModels)
		})

		e.check("MUST NOT let another account read a dataset", class("getDataset"), func(ctx SpecContext) {
			refused(ctx, Request{Method: http.MethodGet, Path: at(pathDatasets, dataset)})
		})
		e.check("MUST NOT show a dataset in another account's list", class("listDatasets"), func(ctx SpecContext) {
			unlisted(ctx, Request{Method: http.MethodGet, Path: pathDatasets}, dataset, J.Items)
		})
		e.check("MUST NOT let another account add files to a dataset", class("uploadDatasetFiles"), func(ctx SpecContext) {
			refused(ctx, Request{Method: http.MethodPost, Path: pathUpload, Form: &Form{
				Fields: []FormField{{"dataset_id", dataset}}, Files: []FormFile{fixtureFile("release-notes.txt")}}})
		})
		e.check("MUST NOT let another account delete a dataset", class("deleteDataset"), func(ctx SpecContext) {
			refusedAndKept(ctx, Request{Method: http.MethodDelete, Path: at(pathDatasets, dataset)}, at(pathDatasets, dataset))
		})

		e.check("MUST NOT show a model's conversations to another account", class("listConversations"), func(ctx SpecContext) {
			e.need(conv, "conversation")
			unlisted(ctx, listConversations(model, nil), conversation, J.Items)
		})
		e.check("MUST NOT let another account open a conversation on a model", class("createConversation"), func(ctx SpecContext) {
			createRefused(ctx, conversationRequest(model, e.name("thread")), pathConversations)
		})
		e.check("MUST NOT let another account rename a conversation", class("renameConversation"), func(ctx SpecContext) {
			e.need(conv, "conversation")
			refused(ctx, Request{Method: http.MethodPatch, Path: at(pathConversations, conversation), JSON: map[string]any{"title": "taken over"}})
		})
		e.check("MUST NOT let another account read a conversation's messages", class("listMessages"), func(ctx SpecContext) {
			e.need(conv, "conversation")
			refused(ctx, Request{Method: http.MethodGet, Path: at(pathConversations, conversation, "/messages")})
		})
		e.check("MUST NOT let another account delete a conversation", class("deleteConversation"), func(ctx SpecContext) {
			e.need(conv, "conversation")
			refusedAndKept(ctx, Request{Method: http.MethodDelete, Path: at(pathConversations, conversation)},
				at(pathConversations, conversation, "/messages"))
		})

		e.check("MUST NOT let another account read an evaluation", class("getEvaluation"), func(ctx SpecContext) {
			e.need(ev, "evaluation")
			refused(ctx, Request{Method: http.MethodGet, Path: at(pathEvaluations, evaluation)})
		})
		e.check("MUST NOT show an evaluation in another account's list", class("listEvaluations"), func(ctx SpecContext) {
			e.need(ev, "evaluation")
			unlisted(ctx, Request{Method: http.MethodGet, Path: pathEvaluations}, evaluation, evaluations)
		})
		e.check("MUST NOT let another account update an evaluation", class("updateEvaluation"), func(ctx SpecContext) {
			e.need(ev, "evaluation")
			refused(ctx, Request{Method: http.MethodPut, Path: at(pathEvaluations, evaluation), JSON: map[string]any{"description": "taken over"}})
		})
		e.check("MUST NOT let another account start an evaluation", class("startEvaluation"), func(ctx SpecContext) {
			e.need(ev, "evaluation")
			refused(ctx, Request{Method: http.MethodPost, Path: at(pathEvaluations, evaluation, "/start")})
		})
		e.check("MUST NOT let another account run RAGAS on an evaluation", class("runRagasEvaluation"), func(ctx SpecContext) {
			e.need(ev, "evaluation")
			refused(ctx, Request{Method: http.MethodPost, Path: at(pathEvaluations, evaluation, "/run-ragas"), JSON: ragasBody(fixtures.RagasSamples()[:1])})
		})
		e.check("MUST NOT let another account delete an evaluation", class("deleteEvaluation"), func(ctx SpecContext) {
			e.need(ev, "evaluation")
			refusedAndKept(ctx, Request{Method: http.MethodDelete, Path: at(pathEvaluations, evaluation)}, at(pathEvaluations, evaluation))
		})
		e.check("MUST NOT let another account evaluate a model", class("createEvaluation"), func(ctx SpecContext) {
			createRefused(ctx, Request{Method: http.MethodPost, Path: pathEvaluations, JSON: evaluationBody(e.name("eval"), model)}, pathEvaluations)
		})
	})
}
