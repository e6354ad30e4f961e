package conformance

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/spec"

	. "github.com/onsi/ginkgo/v2"
)

// inferenceSpecs registers the Inference area: the event stream (seed §4.4),
// the request fields and their refusals; the chunk shape and the JSON answer
// are decisions (D-03, D-04, D-23).
func (e *env) inferenceSpecs() {
	e.describe("Inference", Label("inference"), costs(spec.CostInferences, spec.CostConversations), func() {
		e.check("MUST answer a query as a Server-Sent Events stream: 200, text/event-stream, every event a `data:` line carrying JSON, ended by `data: [DONE]`, the joined answer not empty",
			declared("4.4.2", "1.3"), func(ctx SpecContext) {
				x, s := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), nil)})
				e.expectStream(x, s)
			}, needsModel)

		e.check("SHOULD stream {type, content} chunks: status and context chunks aside, token chunks joined into the answer, a done chunk last carrying thread_id, tokens_used and latency_ms",
			decidedBy("D-03", "4.4.2", "2.11"), func(ctx SpecContext) {
				x, s := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), nil)})
				// The chunks' shape is the judge's (D-03, decided); the done
				// chunk's fields are this check's.
				e.expectStream(x, s)
				var p judge.Findings
				if s != nil {
					if done := s.DoneChunk(); done != nil {
						for _, f := range []string{"thread_id", "tokens_used", "latency_ms"} {
							if _, ok := done[f]; !ok {
								p = append(p, finding("stream:done", "the done chunk's "+f, "none"))
							}
						}
					}
				}
				e.expect(x, "the stream's chunks differ from D-03", p)
			}, needsModel)

		e.check("SHOULD stream the answer incrementally: answer chunks arrive spread over the stream, the first well before the end (a stream under 50 ms is not judged)",
			decidedBy("D-26", "4.4.2"), func(ctx SpecContext) {
				x, s := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), nil)})
				e.expectStream(x, s)
				if s == nil {
					Skip("the answer was not an event stream (see the stream check)")
				}
				p, skip := s.Timing(x.Duration).Incremental()
				if skip != "" {
					Skip(skip)
				}
				e.expect(x, "the answer was not streamed incrementally", p)
			}, needsModel)

		e.check("SHOULD answer one JSON result {status: success, data: {response, ...}} when the client accepts only application/json",
			decidedBy("D-04", "4.4.2", "2.11"), func(ctx SpecContext) {
				x, _ := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), nil), Header: http.Header{"Accept": {"application/json"}}})
				data := e.expectSuccess(x)
				e.want(x, data.Get("response").Str() != "", "/data/response", "the answer text", data.Get("response"))
			}, needsModel)

		e.check("MUST accept every optional field the seed declares",
			declared("4.4.1", "8.1"), func(ctx SpecContext) {
				x, s := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), map[string]any{
					"thread_id": e.unknownUUID(), "enable_web_search": false, "max_tokens": 200, "temperature": 0.5,
					"image_generation": false, "image_parameters": map[string]any{"width": 512, "height": 512, "steps": 20, "guidance": 7.5},
					"persona": map[string]any{"name": "Support agent", "tone": "friendly"}, "base_model": false,
					"session_id": e.name("session"), "user_id": e.name("user"), "tenant_id": e.name("tenant"),
					"top_k": 40, "top_p": 0.9, "response_length_preference": "concise", "creativity_level": 0.3, "factual_precision": 0.9,
				})})
				e.expectStream(x, s)
			}, needsModel)

		lengths := enumOf(bodyField(spec.OpRunInference, "application/json", "response_length_preference"))
		invalid := []struct {
			behaviour string
			extra     map[string]any
		}{
			{"MUST refuse a query without `query` with the error envelope (422)", map[string]any{"query": nil}},
			{"MUST refuse a query without `model_id` with the error envelope (422)", map[string]any{"model_id": nil}},
			{"MUST refuse a model_id that is not an integer with the error envelope (422)", map[string]any{"model_id": "seven"}},
			{fmt.Sprintf("MUST refuse a response_length_preference outside %s with the error envelope (422)", strings.Join(lengths, ", ")), map[string]any{"response_length_preference": "verbose"}},
			{"MUST refuse an enable_web_search that is not a boolean with the error envelope (422)", map[string]any{"enable_web_search": "yes"}},
			{"MUST refuse a temperature that is not a number with the error envelope (422)", map[string]any{"temperature": "warm"}},
		}
		for _, c := range invalid {
			e.check(c.behaviour, declared("4.4.1", "1.2", "7.1", "D-17"), func(ctx SpecContext) {
				x, _ := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), c.extra)})
				e.expectRefused(x, "D-17", http.StatusUnprocessableEntity)
			}, needsModel)
		}

		e.check("SHOULD carry a given thread_id, and the conversation_id of a continued conversation, in the done chunk",
			decidedBy("D-23", "4.4.1", "2.11"), func(ctx SpecContext) {
				model := e.readyModel(ctx)
				c := e.create(ctx, conversationRequest(model, e.name("thread")), pathConversations)
				e.need(c, "conversation")
				thread := e.unknownUUID()
				x, s := e.infer(ctx, client.Request{JSON: query(model, map[string]any{"thread_id": thread, "conversation_id": c.id})})
				e.expectStream(x, s)
				done := s.DoneChunk()
				e.want(x, done != nil, "stream:done", "a done chunk", "none")
				e.want(x, done["thread_id"] == thread, "stream:done/thread_id", strconv.Quote(thread), fmt.Sprint(done["thread_id"]))
				e.want(x, done["conversation_id"] == c.id, "stream:done/conversation_id", strconv.Quote(c.id), fmt.Sprint(done["conversation_id"]))
			}, needsModel)

		e.check("SHOULD refuse an unknown conversation_id (404)",
			decidedBy("D-23", "4.4.1"), func(ctx SpecContext) {
				x, _ := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), map[string]any{"conversation_id": e.unknownUUID()}), Refusal: true})
				e.expectError(x, refusal{statuses: []int{http.StatusNotFound}})
			}, needsModel)
	})
}
