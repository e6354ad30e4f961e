package conformance

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/spec"
)

// envelopeSpecs registers the Envelope and errors area: unknown ids on every
// operation that names a resource, malformed bodies, unknown paths and
// methods are refused with the error envelope (seed §1, §7).
func (e *env) envelopeSpecs() {
	e.describe("Envelope and errors", Label("envelope"), func() {
		e.describe("unknown ids", func() {
			for _, op := range idOperations(spec.Strict()) {
				what := "an id"
				if !strings.Contains(op.Path, "{") {
					what = "a body or query id"
				}
				e.check("MUST refuse "+what+" that the account does not have, with the error envelope (404) on "+opTitle(op),
					declared("1.2", "7.1", op.Clause, "D-17"), func(ctx SpecContext) {
						r := e.sampleRequest(op, nil)
						r.Refusal = true // an id the account does not have: nothing to spend
						e.expectNotFound(e.do(ctx, r))
					})
			}
			e.check("SHOULD answer 404, not 422, for a path id that is not a number where ids are numbers",
				decidedBy("D-20", "4"), func(ctx SpecContext) {
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: at(pathModels, "not-a-number")})
					e.expectError(x, refusal{statuses: []int{http.StatusNotFound}})
				})
		})

		e.describe("malformed requests", func() {
			e.check("MUST refuse a body that is not valid JSON with the error envelope (400)",
				declared("1.3", "1.2", "7.1", "4.2.2", "D-17"), func(ctx SpecContext) {
					x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathConversations,
						Body: []byte(`{"model_id": 1, "title": "unterminated`), ContentType: "application/json"})
					e.expectRefused(x, "D-17", http.StatusBadRequest)
				})
			e.check("MUST refuse a model creation body that is not valid JSON with 400 or 422 and the error envelope",
				declared("1.3", "1.2", "7.2", "4.1.3", "D-17"), func(ctx SpecContext) {
					x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathModels,
						Body: []byte(`{"model_name": `), ContentType: "application/json"})
					e.expectError(x, refusal{statuses: []int{400, 422}, decision: "D-17", exact: http.StatusBadRequest})
				})
			e.check("MUST refuse a JSON endpoint's body sent as text/plain with the error envelope (400)",
				declared("1.3", "1.2", "7.1", "4.5.2", "D-17"), func(ctx SpecContext) {
					x := e.do(ctx, client.Request{Method: http.MethodPost, Path: pathEvaluations,
						Body: []byte("name=conformance"), ContentType: "text/plain"})
					e.expectRefused(x, "D-17", http.StatusBadRequest)
				})
			e.check("MUST answer an unknown path under /api/v1 with the error envelope (404)",
				declared("1.2", "7.1", "9", "D-24"), func(ctx SpecContext) {
					x := e.do(ctx, client.Request{Method: http.MethodGet, Path: "/api/v1/user/" + e.name("no-such-path")})
					e.expectRefused(x, "D-24", http.StatusNotFound)
				})
			e.check("MUST answer a known path with another method with the error envelope (405)",
				declared("1.2", "7.1", "D-17"), func(ctx SpecContext) {
					x := e.do(ctx, client.Request{Method: http.MethodPut, Path: pathModels, JSON: map[string]any{}})
					e.expectRefused(x, "D-17", http.StatusMethodNotAllowed)
				})
		})
	})
}
