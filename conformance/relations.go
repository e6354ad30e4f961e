package conformance

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/spec"
)

// Deletes of resources others name, in the Models area's flow (no model
// more than the flow's own: a run with a budget trains one): once the
// model is ready, the dataset it was built from is deleted, then the
// model with a conversation and an evaluation of it. The seed names no
// refusal of either delete (§4.1: "HTTP 200 on success"; §4.3), so each
// must succeed whatever names the resource; what the delete does to the
// others is D-32's.

// related are the records made to name a flow's model before its delete.
// Their removal waits for the flow's end (relatedCleanup): one registered
// in the delete's check would run when that check ends, before the checks
// of what the delete left of them.
type related struct {
	conversation, evaluation created
}

// datasetUnderModelSpecs registers, in the calling flow, the delete of the
// dataset the model was built from, and the model read after it.
func (e *env) datasetUnderModelSpecs(model, dataset *created) {
	e.check("MUST delete a dataset that a model was built from, with a success envelope",
		declared("4.3.5", "3.3", "1.1"), func(ctx SpecContext) {
			e.need(*model, "model built from the dataset")
			e.need(*dataset, "dataset")
			e.expectSuccess(e.do(ctx, e.deleteRequest("dataset_id", dataset.id)))
		}, Offset(1))
	e.check("SHOULD keep serving a model whose dataset was deleted, naming the dataset still (D-32)",
		decidedBy("D-32", "4.1.2", "4.3.5"), func(ctx SpecContext) {
			e.need(*model, "model")
			e.need(*dataset, "dataset")
			x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathModels, model.id)})
			data := e.expectSuccess(x)
			e.want(x, data.Get("dataset_id").ID() == dataset.id, "/data/dataset_id", dataset.id, data.Get("dataset_id"))
		}, Offset(1))
}

// relate gives the model a conversation and an evaluation (every state of a
// model takes both, D-36), before its delete check deletes it.
func (e *env) relate(ctx SpecContext, model string, r *related) {
	r.conversation = e.made(ctx, conversationRequest(model, e.name("thread")))
	r.evaluation = e.made(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations,
		JSON: evaluationBody(e.name("eval"), model)})
}

// relatedCleanup registers, in the calling flow, the removal of what
// relate made once the flow ends (gone already is fine: the conversation
// goes with its model, D-32).
func (e *env) relatedCleanup(r *related) {
	AfterAll(func(ctx SpecContext) {
		if e.cfg.Keep {
			return
		}
		for _, c := range []struct {
			made       created
			collection string
		}{{r.conversation, pathConversations}, {r.evaluation, pathEvaluations}} {
			if c.made.id != "" {
				e.remove(ctx, at(c.collection, c.made.id), client.AuthKey)
			}
		}
	})
}

// relatedGone are the checks of what a model's delete did to the records
// relate made (D-32): its conversation deleted with it, its evaluation
// kept.
func (e *env) relatedGone(r *related) []goneCheck {
	return []goneCheck{
		{"SHOULD delete a deleted model's conversations with it (D-32): their messages are not found (404)",
			decidedBy("D-32", "4.1.4", "4.2.5"), func(ctx SpecContext, _ string) {
				e.need(r.conversation, "conversation of the model")
				e.expectNotFound(e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathConversations, r.conversation.id, "/messages")}))
			}},
		{"SHOULD keep a deleted model's evaluations (D-32)",
			decidedBy("D-32", "4.1.4", "4.5.3"), func(ctx SpecContext, model string) {
				e.need(r.evaluation, "evaluation of the model")
				x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathEvaluations, r.evaluation.id)})
				data := e.expectSuccess(x)
				e.want(x, data.Get("model_id").ID() == model, "/data/model_id", model, data.Get("model_id"))
			}},
	}
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
