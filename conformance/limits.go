package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
)

// limitSpecs registers the Limits area: the temperature range (seed §8.1)
// and the sizes and page bounds the contract decides (D-05, D-06, D-15).
func (e *env) limitSpecs() {
	Describe("Limits", Label("limits"), func() {
		for _, t := range []float64{1.5, -0.1} {
			e.check(fmt.Sprintf("MUST refuse temperature %v, outside 0.0 to 1.0, with the error envelope (422)", t),
				declared("8.1", "4.4.1", "1.2", "7.1", "D-17"), func(ctx SpecContext) {
					x, _ := e.infer(ctx, Request{JSON: query(e.readyModel(ctx), map[string]any{"temperature": t})})
					e.expectRefused(x, "D-17", http.StatusUnprocessableEntity)
				})
		}
		for _, t := range []float64{0, 1} {
			e.check(fmt.Sprintf("MUST accept temperature %v, a bound of 0.0 to 1.0", t),
				declared("8.1", "4.4.1"), func(ctx SpecContext) {
					x, s := e.infer(ctx, Request{JSON: query(e.readyModel(ctx), map[string]any{"temperature": t})})
					e.expectNone(x, "not a conforming inference stream", streamProblems(x, s))
				})
		}

		e.check("SHOULD refuse an evaluation name longer than 255 characters (422)",
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				body := evaluationBody(e.prefix+strings.Repeat("n", 256), e.readyModel(ctx))
				x := e.create(ctx, Request{Method: http.MethodPost, Path: pathEvaluations, JSON: body}, pathEvaluations).x
				e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
			})

		e.check("SHOULD refuse an inference query longer than 32000 characters (422)",
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				x, _ := e.infer(ctx, Request{JSON: query(e.readyModel(ctx), map[string]any{"query": strings.Repeat("q", 32001)})})
				e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
			})

		e.check("SHOULD refuse a JSON body over 1 MiB (413)",
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				body := fmt.Sprintf(`{"model_id": %s, "title": %q}`, e.unknownID, strings.Repeat("t", 1<<20+1))
				x := e.do(ctx, Request{Method: http.MethodPost, Path: pathConversations, Body: []byte(body), ContentType: "application/json"})
				e.expectError(x, refusal{statuses: []int{http.StatusRequestEntityTooLarge}})
			})

		e.check("SHOULD refuse JSON nested deeper than 64 levels (400)",
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				body := fmt.Sprintf(`{"name": %q, "model_id": %s, "extra": %s%s}`, e.name("eval"), e.unknownID, strings.Repeat("[", 65), strings.Repeat("]", 65))
				x := e.do(ctx, Request{Method: http.MethodPost, Path: pathEvaluations, Body: []byte(body), ContentType: "application/json"})
				e.expectError(x, refusal{statuses: []int{http.StatusBadRequest}})
			})

		e.check("SHOULD refuse more than 500 files in one upload (413)",
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				form := &Form{Fields: []FormField{{"dataset_id", e.sharedDataset(ctx)}}}
				f := fixtureFile("release-notes.txt")
				for i := 0; i < 501; i++ {
					g := f
					g.Name = fmt.Sprintf("notes-%03d.txt", i)
					form.Files = append(form.Files, g)
				}
				x := e.do(ctx, Request{Method: http.MethodPost, Path: pathUpload, Form: form})
				e.expectError(x, refusal{statuses: []int{http.StatusRequestEntityTooLarge}})
			})

		pages := []struct {
			id, behaviour string
			req           func(ctx SpecContext) Request
		}{
			{"D-05", "SHOULD refuse an evaluation page size above 100 (422)", func(SpecContext) Request {
				return Request{Method: http.MethodGet, Path: pathEvaluations, Query: url.Values{"per_page": {"101"}}}
			}},
			{"D-05", "SHOULD refuse evaluation page 0 (422)", func(SpecContext) Request {
				return Request{Method: http.MethodGet, Path: pathEvaluations, Query: url.Values{"page": {"0"}}}
			}},
			{"D-06", "SHOULD refuse a conversation limit above 100 (422)", func(ctx SpecContext) Request {
				return listConversations(e.readyModel(ctx), url.Values{"limit": {"101"}})
			}},
			{"D-06", "SHOULD refuse a negative conversation offset (422)", func(ctx SpecContext) Request {
				return listConversations(e.readyModel(ctx), url.Values{"offset": {"-1"}})
			}},
		}
		for _, p := range pages {
			e.check(p.behaviour, decidedBy(p.id, "8.4"), func(ctx SpecContext) {
				e.expectError(e.do(ctx, p.req(ctx)), refusal{statuses: []int{http.StatusUnprocessableEntity}})
			})
		}
	})
}
