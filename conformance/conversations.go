package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/fixtures"
	"contractkit/judge"
	"contractkit/spec"
)

// conversationSpecs registers the Conversations area: a conversation's life
// with an inference in it (an Ordered flow) and the input rules (seed §4.2,
// §2.4, §2.5).
func (e *env) conversationSpecs() {
	e.describe("Conversations", Label("conversations"), costs(spec.CostConversations, spec.CostInferences), func() {
		e.describe("a conversation's life", Ordered, ContinueOnFailure, needsModel, func() {
			var (
				model, title, renamed string
				created               created
				question              fixtures.Question
			)
			BeforeAll(func(ctx SpecContext) {
				model = e.readyModel(ctx)
				title = e.name("thread")
				question = fixtures.Questions()[2]
				created = e.create(ctx, conversationRequest(model, title), pathConversations)
			})

			e.check("MUST create a conversation from {model_id, title} and answer {status: success, data: Conversation} bound to the model",
				declared("4.2.2", "2.4", "1.1"), func(ctx SpecContext) {
					data := e.expectSuccess(created.x)
					e.want(created.x, created.id != "", "/data/id", "an id", "none")
					e.want(created.x, data.Get("id").IsString(), "/data/id", "a string (seed §2.4)", data.Get("id"))
					e.want(created.x, data.Get("model_id").ID() == model, "/data/model_id", model, data.Get("model_id"))
					e.want(created.x, data.Get("title").Str() == title, "/data/title", strconv.Quote(title), data.Get("title"))
				})

			e.check("MUST list the conversation among the model's conversations",
				declared("4.2.1", "2.4"), func(ctx SpecContext) {
					e.need(created, "conversation")
					x := e.do(ctx, listConversations(model, nil))
					ids := judge.IDs(e.expectSuccess(x).Items())
					e.want(x, slices.Contains(ids, created.id), "/data", "conversation "+created.id+" listed", fmt.Sprintf("ids %v", ids))
				})

			e.check("MUST rename the conversation with PATCH {title}",
				declared("4.2.3", "2.4"), func(ctx SpecContext) {
					e.need(created, "conversation")
					renamed = e.name("renamed")
					x := e.do(ctx, client.Request{Method: http.MethodPatch, Path: at(pathConversations, created.id),
						JSON: map[string]any{"title": renamed}})
					data := e.expectSuccess(x)
					e.want(x, data.Get("title").Str() == renamed, "/data/title", strconv.Quote(renamed), data.Get("title"))
					e.want(x, data.Get("id").ID() == created.id, "/data/id", created.id, data.Get("id"))
				})

			e.check("MUST keep a query and its answer in the conversation an inference continues (messages user then assistant, D-11)",
				declared("4.2.5", "4.4.1", "2.5", "D-11"), func(ctx SpecContext) {
					e.need(created, "conversation")
					x, s := e.infer(ctx, client.Request{JSON: map[string]any{
						"query": question.Question, "model_id": jsonInt(model), "conversation_id": created.id}})
					e.expectStream(x, s)
					x = e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathConversations, created.id, "/messages")})
					msgs := e.expectSuccess(x).Items()
					var contents []string
					for _, m := range msgs {
						contents = append(contents, m.Get("content").Str())
					}
					e.want(x, slices.Contains(contents, question.Question), "/data", "a message holding the query "+strconv.Quote(question.Question), "contents "+quoteList(contents))
					e.decided("D-11", func() {
						var roles []string
						for _, m := range msgs {
							roles = append(roles, m.Get("role").Str())
						}
						ok := len(msgs) == 2 && roles[0] == "user" && roles[1] == "assistant" &&
							msgs[0].Get("content").Str() == question.Question && msgs[1].Get("content").Str() != ""
						e.want(x, ok, "/data", `roles ["user" (the query), "assistant" (a non-empty answer)]`, "roles "+quoteList(roles))
					})
				})

			e.check("SHOULD count the messages and show the latest in the conversation",
				decidedBy("D-09", "2.4"), func(ctx SpecContext) {
					e.need(created, "conversation")
					x := e.do(ctx, listConversations(model, nil))
					var conv judge.J
					at := "-"
					for i, c := range e.expectSuccess(x).Items() {
						if c.Get("id").ID() == created.id {
							conv, at = c, strconv.Itoa(i)
						}
					}
					n, _ := conv.Get("total_messages").Int()
					e.want(x, n == 2, judge.Pointer("data", at, "total_messages"), "2", conv.Get("total_messages"))
					e.want(x, conv.Get("message").Str() != "", judge.Pointer("data", at, "message"), "the latest message", conv.Get("message"))
					e.want(x, conv.Get("message_timestamp").Exists(), judge.Pointer("data", at, "message_timestamp"), "the latest message's time", "null")
				})

			e.deletionSpecs(deletion{
				of: "conversation_id", res: &created,
				gone: []goneCheck{
					{"MUST NOT list the messages of a deleted conversation: the error envelope (404)",
						declared("4.2.4", "4.2.5", "1.2", "D-17"), e.notReturned("conversation_id")},
					{"MUST NOT list a deleted conversation",
						declared("4.2.4", "4.2.1"), e.notListed("conversation_id", func() map[string]string { return map[string]string{"model_id": model} })},
					// The deleted id alone, with the model the conversation
					// had: a server that refused another value first would
					// hide whether it continues a deleted conversation.
					{"MUST NOT continue a deleted conversation: an inference naming it with its model is refused with the error envelope (404)",
						declared("4.2.4", "4.4.1", "1.2", "D-17"), func(ctx SpecContext, id string) {
							x, _ := e.infer(ctx, client.Request{JSON: query(model, map[string]any{"conversation_id": id}), Refusal: true})
							e.expectNotFound(x)
						}},
				},
			})
		})

		e.describe("input", func() {
			e.check("MUST give a conversation created without a title the empty title",
				declared("4.2.2", "2.4"), func(ctx SpecContext) {
					c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathConversations,
						JSON: map[string]any{"model_id": jsonInt(e.readyModel(ctx))}}, pathConversations)
					data := e.expectSuccess(c.x)
					e.want(c.x, data.Get("title").Value() == "", "/data/title", `"" (the default)`, data.Get("title"))
				}, needsModel)

			e.check("MUST refuse to list conversations without model_id with the error envelope (422)",
				declared("4.2.1", "1.2", "D-17"), func(ctx SpecContext) {
					e.expectRefused(e.do(ctx, client.Request{Method: http.MethodGet, Path: pathConversations}), "D-17", http.StatusUnprocessableEntity)
				})

			e.check("MUST refuse a conversation whose model_id is not an integer with the error envelope (422)",
				declared("4.2.2", "1.2", "D-17"), func(ctx SpecContext) {
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathConversations,
						JSON: map[string]any{"model_id": "seven", "title": "x"}}, pathConversations).x
					e.expectRefused(x, "D-17", http.StatusUnprocessableEntity)
				})

			e.check("SHOULD refuse a conversation without model_id (422)",
				decidedBy("D-09", "4.2.2"), func(ctx SpecContext) {
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathConversations,
						JSON: map[string]any{"title": "x"}}, pathConversations).x
					e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
				})

			e.check("SHOULD rename with the title as a query parameter",
				decidedBy("D-21", "4.2.3"), func(ctx SpecContext) {
					c := e.create(ctx, conversationRequest(e.readyModel(ctx), e.name("thread")), pathConversations)
					e.need(c, "conversation")
					title := e.name("renamed")
					x := e.do(ctx, client.Request{Method: http.MethodPatch, Path: at(pathConversations, c.id), Query: url.Values{"title": {title}}})
					data := e.expectSuccess(x)
					e.want(x, data.Get("title").Str() == title, "/data/title", strconv.Quote(title), data.Get("title"))
				}, needsModel)

			e.check("SHOULD page the list with limit and offset, newest first",
				decidedBy("D-06", "4.2.1"), func(ctx SpecContext) {
					model := e.readyModel(ctx)
					var ids []string
					for i := 0; i < 2; i++ {
						c := e.create(ctx, conversationRequest(model, e.name("thread")), pathConversations)
						e.need(c, "conversation")
						ids = append(ids, c.id)
					}
					x := e.do(ctx, listConversations(model, url.Values{"limit": {"1"}}))
					page := judge.IDs(e.expectSuccess(x).Items())
					e.want(x, len(page) == 1 && page[0] == ids[1], "/data", fmt.Sprintf("limit=1: ids [%s] (the newest)", ids[1]), fmt.Sprintf("ids %v", page))
					x = e.do(ctx, listConversations(model, url.Values{"limit": {"1"}, "offset": {"1"}}))
					page = judge.IDs(e.expectSuccess(x).Items())
					e.want(x, len(page) == 1 && page[0] == ids[0], "/data", fmt.Sprintf("limit=1&offset=1: ids [%s]", ids[0]), fmt.Sprintf("ids %v", page))
				}, needsModel)
		})
	})
}
