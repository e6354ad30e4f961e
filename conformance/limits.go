package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/spec"

	. "github.com/onsi/ginkgo/v2"
)

// limitSpecs registers the Limits area: the temperature range (seed §8.1)
// and the sizes and page bounds the contract decides (D-05, D-06, D-15),
// each read from the contract. OpenAPI has no keyword for the JSON body
// size and nesting limits: they come from the contract's x-request-limits
// mark (D-15).
func (e *env) limitSpecs() {
	e.describe("Limits", Label("limits"), costs(spec.CostInferences, spec.CostDatasets), func() {
		temperature := bodyField(spec.OpRunInference, "application/json", "temperature")
		low, high := *temperature.Min, *temperature.Max
		for _, t := range []float64{high + 0.5, low - 0.1} {
			e.check(fmt.Sprintf("MUST refuse temperature %v, outside %.1f to %.1f, with the error envelope (422)", t, low, high),
				declared("8.1", "4.4.1", "1.2", "7.1", "D-17"), func(ctx SpecContext) {
					x, _ := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), map[string]any{"temperature": t})})
					e.expectRefused(x, "D-17", http.StatusUnprocessableEntity)
				}, needsModel)
		}
		for _, t := range []float64{low, high} {
			e.check(fmt.Sprintf("MUST accept temperature %v, a bound of %.1f to %.1f", t, low, high),
				declared("8.1", "4.4.1"), func(ctx SpecContext) {
					x, s := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), map[string]any{"temperature": t})})
					e.expectStream(x, s)
				}, needsModel)
		}

		nameMax := int(*bodyField(placed(spec.RoleCreate, "evaluation_id"), "application/json", "name").MaxLength)
		e.check(fmt.Sprintf("SHOULD refuse an evaluation name longer than %d characters (422)", nameMax),
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				body := evaluationBody(e.prefix+strings.Repeat("n", nameMax+1), e.readyModel(ctx))
				x := e.create(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, JSON: body}, pathEvaluations).x
				e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
			}, needsModel)

		queryMax := int(*bodyField(spec.OpRunInference, "application/json", "query").MaxLength)
		e.check(fmt.Sprintf("SHOULD refuse an inference query longer than %d characters (422)", queryMax),
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				x, _ := e.infer(ctx, client.Request{JSON: query(e.readyModel(ctx), map[string]any{"query": strings.Repeat("q", queryMax+1)})})
				e.expectError(x, refusal{statuses: []int{http.StatusUnprocessableEntity}})
			}, needsModel)

		limits := spec.RequestLimits()
		e.check(fmt.Sprintf("SHOULD refuse a JSON body over %s (413)", sizeText(limits.JSONBodyBytes)),
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				body := fmt.Sprintf(`{"model_id": %s, "title": %q}`, e.unknownID, strings.Repeat("t", int(limits.JSONBodyBytes)+1))
				x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathConversations, Body: []byte(body), ContentType: "application/json", Refusal: true})
				e.expectError(x, refusal{statuses: []int{http.StatusRequestEntityTooLarge}})
			})

		e.check(fmt.Sprintf("SHOULD refuse JSON nested deeper than %d levels (400)", limits.JSONDepth),
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				// The brackets alone go one past the limit, whether or not a
				// server counts the enclosing object as a level.
				deep := limits.JSONDepth + 1
				body := fmt.Sprintf(`{"name": %q, "model_id": %s, "extra": %s%s}`, e.name("eval"), e.unknownID, strings.Repeat("[", deep), strings.Repeat("]", deep))
				x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations, Body: []byte(body), ContentType: "application/json", Refusal: true})
				e.expectError(x, refusal{statuses: []int{http.StatusBadRequest}})
			})

		filesMax := int(*bodyField(spec.OpUploadDatasetFiles, "multipart/form-data", "files").MaxItems)
		e.check(fmt.Sprintf("SHOULD refuse more than %d files in one upload (413)", filesMax),
			decidedBy("D-15", "8.4"), func(ctx SpecContext) {
				form := &exchange.Form{Fields: []exchange.FormField{{Name: "dataset_id", Value: e.sharedDataset(ctx)}}}
				f := fixtureFile("release-notes.txt")
				for i := 0; i < filesMax+1; i++ {
					g := f
					g.Name = fmt.Sprintf("notes-%03d.txt", i)
					form.Files = append(form.Files, g)
				}
				x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathUpload, Form: form, Refusal: true})
				e.expectError(x, refusal{statuses: []int{http.StatusRequestEntityTooLarge}})
			})

		evalPages := paging(spec.RoleList, "evaluation_id", "size", "page")
		perPage, page := evalPages["size"], evalPages["page"]
		perPageMax, pageMin := int(*perPage.Schema.Value.Max), int(*page.Schema.Value.Min)
		convPages := paging(spec.RoleList, "conversation_id", "size", "offset")
		limit, offset := convPages["size"], convPages["offset"]
		limitMax := int(*limit.Schema.Value.Max)
		pages := []struct {
			id, behaviour string
			req           func(ctx SpecContext) client.Request
			labels        Labels
		}{
			{"D-05", fmt.Sprintf("SHOULD refuse an evaluation page size above %d (422)", perPageMax), func(SpecContext) client.Request {
				return client.Request{Method: http.MethodGet, Path: pathEvaluations, Query: url.Values{perPage.Name: {strconv.Itoa(perPageMax + 1)}}}
			}, nil},
			{"D-05", fmt.Sprintf("SHOULD refuse evaluation page %d (422)", pageMin-1), func(SpecContext) client.Request {
				return client.Request{Method: http.MethodGet, Path: pathEvaluations, Query: url.Values{page.Name: {strconv.Itoa(pageMin - 1)}}}
			}, nil},
			{"D-06", fmt.Sprintf("SHOULD refuse a conversation limit above %d (422)", limitMax), func(ctx SpecContext) client.Request {
				return listConversations(e.readyModel(ctx), url.Values{limit.Name: {strconv.Itoa(limitMax + 1)}})
			}, needsModel},
			{"D-06", "SHOULD refuse a negative conversation offset (422)", func(ctx SpecContext) client.Request {
				return listConversations(e.readyModel(ctx), url.Values{offset.Name: {"-1"}})
			}, needsModel},
		}
		for _, p := range pages {
			e.check(p.behaviour, decidedBy(p.id, "8.4"), func(ctx SpecContext) {
				e.expectError(e.do(ctx, p.req(ctx)), refusal{statuses: []int{http.StatusUnprocessableEntity}})
			}, p.labels)
		}
	})
}
