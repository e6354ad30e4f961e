package conformance

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/spec"
)

// relationSpecs registers, in the Models area, the deletes of resources
// others name (an Ordered flow): a dataset a model was built from, then
// that model with a conversation and an evaluation of it. The seed names
// no refusal of either delete (§4.1: "HTTP 200 on success", §4.3), so
// each must succeed whatever names the resource; what the delete does to
// the others is D-32's.
func (e *env) relationSpecs() {
	e.describe("deletes of resources others name", Ordered, ContinueOnFailure,
		costs(spec.CostModels, spec.CostDatasets, spec.CostConversations, spec.CostEvaluations), func() {
			var dataset, model, conversation, evaluation created
			BeforeAll(func(ctx SpecContext) {
				dataset = e.create(ctx, lifeDatasetRequest(e.name("related-data")), pathDatasets)
				if dataset.id == "" {
					return // the checks skip, naming the answer
				}
				model = e.create(ctx, lifeModelRequest(e.name("related"), dataset.id), pathModels)
				if model.id == "" {
					return
				}
				// Every state of a model takes conversations and
				// evaluations (D-36): neither waits for the training.
				conversation = e.create(ctx, conversationRequest(model.id, e.name("thread")), pathConversations)
				evaluation = e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations,
					JSON: evaluationBody(e.name("eval"), model.id)}, pathEvaluations)
			})

			e.check("MUST delete a dataset that a model was built from, with a success envelope",
				declared("4.3.5", "3.3", "1.1"), func(ctx SpecContext) {
					e.need(dataset, "dataset")
					e.need(model, "model built from the dataset")
					e.expectSuccess(e.do(ctx, e.deleteRequest("dataset_id", dataset.id)))
				})

			e.check("SHOULD keep the model built from a deleted dataset, naming the dataset still (D-32)",
				decidedBy("D-32", "4.1.2", "4.3.5"), func(ctx SpecContext) {
					e.need(model, "model")
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathModels, model.id)})
					data := e.expectSuccess(x)
					e.want(x, data.Get("dataset_id").ID() == dataset.id, "/data/dataset_id", dataset.id, data.Get("dataset_id"))
				})

			e.check("MUST delete a model that has a conversation and an evaluation, with HTTP 200 and a success envelope",
				declared("4.1.4", "1.1"), func(ctx SpecContext) {
					e.need(model, "model")
					e.need(conversation, "conversation of the model")
					e.need(evaluation, "evaluation of the model")
					x := e.do(ctx, e.deleteRequest("model_id", model.id))
					e.expectSuccess(x)
					e.expect(x, "the delete did not answer HTTP 200", judge.Status(x, http.StatusOK))
				})

			e.check("SHOULD delete a deleted model's conversations with it (D-32): their messages are not found (404)",
				decidedBy("D-32", "4.1.4", "4.2.5"), func(ctx SpecContext) {
					e.need(conversation, "conversation")
					e.expectNotFound(e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathConversations, conversation.id, "/messages")}))
				})

			e.check("SHOULD keep a deleted model's evaluations (D-32)",
				decidedBy("D-32", "4.1.4", "4.5.3"), func(ctx SpecContext) {
					e.need(evaluation, "evaluation")
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathEvaluations, evaluation.id)})
					data := e.expectSuccess(x)
					e.want(x, data.Get("model_id").ID() == model.id, "/data/model_id", model.id, data.Get("model_id"))
				})
		})
}

// deleteRequest is the delete of the resource of id parameter param named
// id, made permanent where the run counts its spending (D-40: a run that
// counts its spending leaves nothing soft-deleted, and the contract has
// no way to erase it later).
func (e *env) deleteRequest(param, id string) client.Request {
	op, _ := spec.Strict().OperationAt(spec.RoleDelete, param)
	req := e.sampleRequest(op, map[string]string{param: id})
	if q := permanently(spec.Strict(), op); e.cfg.Spend.active() && q != nil {
		req.Query = q
	}
	return req
}
