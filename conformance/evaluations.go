package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/fixtures"
	"contractkit/judge"
	"contractkit/spec"
)

// evaluationSpecs registers the Evaluations area: an evaluation's life
// through its states with the refusal to delete it while running (an
// Ordered flow), the list and its filters, the input rules and run-ragas
// (seed §4.5, §3.1, §2.8-2.10, §8.3).
func (e *env) evaluationSpecs() {
	// SpecPriority(-1): its run is started after the areas that wait on
	// nothing of their own, and waited for while the Models area's
	// training goes on (early.go).
	e.describe("Evaluations", Label("evaluations"), SpecPriority(-1), func() {
		e.describe("an evaluation's life", Ordered, ContinueOnFailure, costs(spec.CostEvaluations, spec.CostEvaluationRuns), needsModel, func() {
			var (
				model, name, final string
				nameBefore         *exchange.Exchange
				created            created
				started, ended     bool
			)
			BeforeAll(func(ctx SpecContext) {
				model = e.readyModel(ctx)
				name = e.name("eval")
				nameBefore = e.do(ctx, checkName(name))
				created = e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: evaluationBody(name, model)}, pathEvaluations)
			})

			e.check("MUST report a name no evaluation has as available before the creation",
				declared("4.5.6", "2.9", "D-19"), func(ctx SpecContext) {
					data := e.expectSuccess(nameBefore)
					e.want(nameBefore, data.Get("available").Value() == true, "/data/available", "true", data.Get("available"))
					e.decided("D-19", func() {
						e.want(nameBefore, data.Get("valid").Value() == true, "/data/valid", fmt.Sprintf("true for %q", name), data.Get("valid"))
					})
				})

			e.check("MUST create an evaluation and answer {status: success, data: Evaluation} in state pending",
				declared("4.5.2", "2.8", "3.1", "1.1"), func(ctx SpecContext) {
					data := e.expectSuccess(created.x)
					e.want(created.x, created.id != "", "/data/id", "an id", "none")
					e.want(created.x, data.Get("name").Str() == name, "/data/name", strconv.Quote(name), data.Get("name"))
					e.want(created.x, data.Get("model_id").ID() == model, "/data/model_id", model, data.Get("model_id"))
					e.want(created.x, data.Get("status").Str() == "pending", "/data/status", `"pending" (the initial state)`, data.Get("status"))
				})

			e.check("MUST report the name of an existing evaluation as not available",
				declared("4.5.6", "2.9"), func(ctx SpecContext) {
					e.need(created, "evaluation")
					x := e.do(ctx, checkName(name))
					data := e.expectSuccess(x)
					e.want(x, data.Get("available").Value() == false, "/data/available", "false", data.Get("available"))
				})

			e.check("SHOULD refuse a second evaluation with a taken name (409)",
				decidedBy("D-19", "4.5.2"), func(ctx SpecContext) {
					e.need(created, "evaluation")
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: evaluationBody(name, model), Refusal: true}, pathEvaluations).x
					e.expectError(x, refusal{statuses: []int{http.StatusConflict}})
				})

			e.check("MUST update the description and keep the status",
				declared("4.5.4", "2.8"), func(ctx SpecContext) {
					e.need(created, "evaluation")
					desc := "updated by " + e.prefix
					x := e.do(ctx, client.Request{Method: http.MethodPut, Path: at(pathEvaluations, created.id), JSON: map[string]any{"description": desc}})
					data := e.expectSuccess(x)
					e.want(x, data.Get("description").Str() == desc, "/data/description", strconv.Quote(desc), data.Get("description"))
					e.want(x, data.Get("status").Str() == "pending", "/data/status", `"pending" (unchanged)`, data.Get("status"))
				})

			e.check("MUST return the evaluation by id",
				declared("4.5.3", "2.8"), func(ctx SpecContext) {
					e.need(created, "evaluation")
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathEvaluations, created.id)})
					data := e.expectSuccess(x)
					e.want(x, data.Get("id").ID() == created.id, "/data/id", created.id, data.Get("id"))
				})

			e.check("MUST start the evaluation and answer {status: success, data: {message, model_id}}",
				declared("4.5.7", "2.10"), func(ctx SpecContext) {
					e.need(created, "evaluation")
					x := e.do(ctx, client.Request{Method: http.MethodPost, Path: at(pathEvaluations, created.id, "/start")})
					started = x.Status/100 == 2
					data := e.expectSuccess(x)
					e.want(x, data.Get("model_id").ID() == model, "/data/model_id", model, data.Get("model_id"))
				})

			e.check("SHOULD refuse to start a running evaluation (409)",
				decidedBy("D-12", "3.1"), func(ctx SpecContext) {
					e.need(created, "evaluation")
					status, x := e.evaluationStatus(ctx, created.id)
					if status != "running" {
						Skip(fmt.Sprintf("the evaluation was %q, not running, when the suite looked (%s)", status, x.Line()))
					}
					x = e.do(ctx, client.Request{Method: http.MethodPost, Path: at(pathEvaluations, created.id, "/start"), Refusal: true})
					e.expectError(x, refusal{statuses: []int{http.StatusConflict}})
				})

			e.check("MUST refuse to delete a running evaluation with a 4xx error envelope (409), and keep it",
				declared("3.1.1", "8.3", "4.5.5", "1.2", "D-13"), func(ctx SpecContext) {
					if started && !e.spend.ledger.Available(spec.CostEvaluationRuns) {
						e.checkOwnRunningDeleteRefused(ctx, created.id)
						return
					}
					e.checkRunningDeleteRefused(ctx, model)
				})

			// That a run ends is the seed's: completed and failed are its
			// terminal states (§3.1), and a running evaluation cannot be
			// deleted (§3.1.1, §8.3) while DELETE deletes evaluations
			// (§4.5.5), so a run that never ended would make the
			// evaluation undeletable. How long it may take is --timeout.
			e.check("MUST end a started run as completed or failed (within --timeout)",
				declared("3.1", "8.3", "4.5.5"), func(ctx SpecContext) {
					e.need(created, "evaluation")
					if !started {
						Skip("the evaluation was not started (see the start check), so no run can end")
					}
					final = e.waitEvaluationEnd(ctx, created.id)
					ended = true
				})

			e.check("SHOULD list the ended evaluation under its status filter",
				decidedBy("D-05", "3.1.2", "4.5.1"), func(ctx SpecContext) {
					e.need(created, "evaluation")
					if !ended {
						Skip("the evaluation did not end")
					}
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: pathEvaluations, Query: url.Values{"status": {final}, "per_page": {"100"}}})
					ids := judge.IDs(e.expectSuccess(x).Get("evaluations").Items())
					e.want(x, slices.Contains(ids, created.id), "/data/evaluations", fmt.Sprintf("evaluation %s (%s) listed under ?status=%s", created.id, final, final), fmt.Sprintf("ids %v", ids))
				})

			e.deletionSpecs(deletion{
				op: "deleteEvaluation", res: &created,
				more: func(x *exchange.Exchange, data judge.J) {
					body, _ := judge.ParseJSON(x.Raw)
					e.want(x, data.Get("message").IsString() || body.Get("message").IsString(), "/data/message", "a `message` string in the body", "none")
					e.decided("D-02", func() {
						e.want(x, data.Get("message").IsString(), "/data/message", "a string", data.Get("message"))
					})
				},
				notYet: func() string {
					if !ended {
						return "the evaluation did not end"
					}
					return ""
				},
				gone: []goneCheck{
					{"MUST NOT return a deleted evaluation: the error envelope (404)",
						declared("4.5.5", "4.5.3", "1.2", "D-17"), e.notReturned("getEvaluation")},
				},
			})
		})

		e.describe("listing", costs(spec.CostEvaluations), func() {
			e.check("MUST list evaluations as {evaluations, page, per_page, total} with consistent paging",
				declared("4.5.1", "2.8"), func(ctx SpecContext) {
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: pathEvaluations})
					data := e.expectSuccess(x)
					items := data.Get("evaluations").Items()
					page, _ := data.Get("page").Int()
					perPage, _ := data.Get("per_page").Int()
					total, _ := data.Get("total").Int()
					var p judge.Findings
					if page < 1 {
						p = append(p, finding("/data/page", "a page number from 1", data.Get("page")))
					}
					if perPage < 1 || int64(len(items)) > perPage {
						p = append(p, finding("/data/per_page", fmt.Sprintf("at least 1 and the %d evaluations on the page", len(items)), data.Get("per_page")))
					}
					if total < int64(len(items)) || (page == 1 && total > 0 && len(items) == 0) {
						p = append(p, finding("/data/total", fmt.Sprintf("at least the %d evaluations on page %d", len(items), page), data.Get("total")))
					}
					e.expect(x, "the paging fields are not consistent", p)
				})

			// The four states of seed §2.8 and §3.1, as the contract lists them.
			for _, status := range schemaEnum("EvaluationStatus") {
				e.check(fmt.Sprintf("SHOULD hold only %s evaluations in the list filtered by status=%s", status, status),
					decidedBy("D-05", "3.1.2", "4.5.1"), func(ctx SpecContext) {
						x := e.do(ctx, client.Request{Method: http.MethodGet, Path: pathEvaluations, Query: url.Values{"status": {status}, "per_page": {"100"}}})
						var other judge.Findings
						for i, ev := range e.expectSuccess(x).Get("evaluations").Items() {
							if st := ev.Get("status").Str(); st != status {
								other = append(other, finding(judge.Pointer("data", "evaluations", strconv.Itoa(i), "status"), strconv.Quote(status)+" (the filter)", strconv.Quote(st)))
							}
						}
						e.expect(x, "the list filtered by "+status+" holds other evaluations", other)
					})
			}

			e.check("SHOULD page the list with page and per_page",
				decidedBy("D-05", "4.5.1"), func(ctx SpecContext) {
					model := e.readyModel(ctx)
					for i := 0; i < 2; i++ {
						c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: evaluationBody(e.name("eval"), model)}, pathEvaluations)
						e.need(c, "evaluation")
					}
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: pathEvaluations, Query: url.Values{"page": {"2"}, "per_page": {"1"}}})
					data := e.expectSuccess(x)
					n := len(data.Get("evaluations").Items())
					page, _ := data.Get("page").Int()
					perPage, _ := data.Get("per_page").Int()
					total, _ := data.Get("total").Int()
					e.want(x, n == 1 && page == 2 && perPage == 1 && total >= 2, "/data", "page=2&per_page=1: 1 evaluation, page 2, per_page 1, total at least 2",
						fmt.Sprintf("%d evaluations, page %d, per_page %d, total %d", n, page, perPage, total))
				}, needsModel)
		})

		e.describe("input", costs(spec.CostEvaluations), func() {
			e.check("MUST refuse an evaluation whose question_count is not an integer with the error envelope (422)",
				declared("4.5.2", "1.2", "D-17"), func(ctx SpecContext) {
					body := evaluationBody(e.name("eval"), e.readyModel(ctx))
					body["question_count"] = "ten"
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: body}, pathEvaluations).x
					e.expectRefused(x, "D-17", http.StatusUnprocessableEntity)
				}, needsModel)

			e.check("MUST refuse a check-name without name with the error envelope (422)",
				declared("4.5.6", "1.2", "D-17"), func(ctx SpecContext) {
					e.expectRefused(e.do(ctx, client.Request{Method: http.MethodGet, Path: pathCheckName}), "D-17", http.StatusUnprocessableEntity)
				})

			e.check("SHOULD refuse an evaluation without name (422)",
				decidedBy("D-09", "4.5.2"), func(ctx SpecContext) {
					body := evaluationBody("", e.readyModel(ctx))
					delete(body, "name")
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: body}, pathEvaluations).x
					e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
				}, needsModel)

			e.check("SHOULD keep an evaluation type it is given: the seed shows no closed set",
				decidedBy("D-11", "4.5.2"), func(ctx SpecContext) {
					body := evaluationBody(e.name("eval"), e.readyModel(ctx))
					body["type"] = "custom-suite"
					x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: body}, pathEvaluations).x
					data := e.expectSuccess(x)
					e.want(x, data.Get("type").Str() == "custom-suite", "/data/type", `"custom-suite"`, data.Get("type"))
				}, needsModel)

			e.check("SHOULD report a name with characters outside the naming rules as not valid",
				decidedBy("D-19", "4.5.6", "2.9"), func(ctx SpecContext) {
					x := e.do(ctx, checkName("bad <name> {"+e.prefix+"}"))
					data := e.expectSuccess(x)
					e.want(x, data.Get("valid").Value() == false, "/data/valid", "false", data.Get("valid"))
					e.want(x, data.Get("message").Str() != "", "/data/message", "the rule that failed", data.Get("message"))
				})

			e.check("SHOULD refuse to filter the list by a status outside the four (422)",
				decidedBy("D-05", "3.1.2"), func(ctx SpecContext) {
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: pathEvaluations, Query: url.Values{"status": {"paused"}}})
					e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
				})
		})

		e.check("SHOULD score samples with run-ragas, complete the evaluation and store the four scores in results",
			decidedBy("D-10", "4.5.8", "2.8"), func(ctx SpecContext) {
				c := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: evaluationBody(e.name("ragas"), e.readyModel(ctx))}, pathEvaluations)
				e.need(c, "evaluation")
				x := e.do(ctx, client.Request{Method: http.MethodPost, Path: at(pathEvaluations, c.id, "/run-ragas"), JSON: ragasBody(fixtures.RagasSamples())})
				data := e.expectSuccess(x)
				e.want(x, data.Get("id").ID() == c.id, "/data/id", c.id, data.Get("id"))
				e.want(x, data.Get("status").Str() == "completed", "/data/status", `"completed"`, data.Get("status"))
				var p judge.Findings
				for _, m := range []string{"faithfulness", "answer_relevancy", "context_precision", "context_recall"} {
					v := data.Get("results", "scores", m).Value()
					if _, ok := v.(interface{ Float64() (float64, error) }); !ok {
						p = append(p, finding(judge.Pointer("data", "results", "scores", m), "a score", data.Get("results", "scores", m)))
					}
				}
				e.expect(x, "run-ragas stored no scores", p)
			}, costs(spec.CostEvaluations, spec.CostEvaluationRuns), needsModel)

	})
}
