package judge

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// Judge is the one judgement of exchanges against one contract, as a
// value: the written checks, the reference model's part, the property
// part, the validating proxy and the recorder each hold one (made from
// the same contract, they give the same verdict), and a test makes its
// own from any document. Everything it needs is read from the contract
// when it is made; its verdict cache is its own. Safe for concurrent use.
type Judge struct {
	// strict is the contract as written; declared the same document with
	// every decided constraint relaxed (spec.Relax).
	strict, declared *spec.Contract
	// chunkTypes are the chunk types of InferenceChunk.type (D-03).
	chunkTypes []string
	// resultFields are the declared view's InferenceResult properties
	// (§2.11): the types a done chunk's fields of the same names carry.
	resultFields map[string]*openapi3.Schema
	// headerDocs says, per "operationId status", whether the contract
	// documents response headers there (cache.go).
	headerDocs map[string]bool
	// successStatus is, per operation, the success status the reference
	// itself names (spec.FactSuccessStatus: §4.1's "HTTP 200 on success").
	successStatus map[string]spec.Fact
	// cache keeps the verdicts of answers, requests those of requests
	// (cache.go).
	cache, requests *verdictCache
	// routes are the operations of paths routed before (Operation).
	routesMu sync.Mutex
	routes   map[routeKey]routed
}

// New makes the judge of a contract: strict is the document as written,
// declared its declared view (spec.Relax of the same document). Both come
// from one document; New reads what it needs of them once.
func New(strict, declared *spec.Contract) *Judge {
	return &Judge{strict: strict, declared: declared, chunkTypes: chunkTypesOf(strict),
		resultFields: resultFieldsOf(declared), headerDocs: headerDocsOf(strict), successStatus: successStatusesOf(declared),
		cache: newVerdictCache(), requests: newVerdictCache(), routes: map[routeKey]routed{}}
}

// Build makes the judge of a raw OpenAPI document, its declared view
// derived from it: what a test with its own copy of the contract calls.
func Build(raw []byte) (*Judge, error) {
	strict, err := spec.Build(raw)
	if err != nil {
		return nil, err
	}
	relaxed, err := spec.Relax(raw)
	if err != nil {
		return nil, err
	}
	declared, err := spec.Build(relaxed)
	if err != nil {
		return nil, fmt.Errorf("the declared view: %w", err)
	}
	return New(strict, declared), nil
}

// Contract is the contract as written, the judge's strict view.
func (j *Judge) Contract() *spec.Contract { return j.strict }

// Operation is the contract operation of a request — its operationId and
// its area (its tag: models, datasets, ...) — or ok=false when the request
// is outside the contract.
func (j *Judge) Operation(method, path string) (id, area string, ok bool) {
	k := routeKey{method, path}
	j.routesMu.Lock()
	r, seen := j.routes[k]
	j.routesMu.Unlock()
	if !seen {
		r.id, r.area, r.ok = j.route(method, path)
		j.routesMu.Lock()
		if len(j.routes) >= maxRoutes {
			clear(j.routes)
		}
		j.routes[k] = r
		j.routesMu.Unlock()
	}
	return r.id, r.area, r.ok
}

// The operations of requests routed before, by method and path: a client
// sends the same few paths over and over (maxRoutes bounds them; when full
// the memory starts again empty).
const maxRoutes = 4096

type routeKey struct{ method, path string }

type routed struct {
	id, area string
	ok       bool
}

// route finds the operation of a request with the contract's router.
func (j *Judge) route(method, path string) (id, area string, ok bool) {
	req, err := http.NewRequest(method, "http://contract.invalid"+path, nil)
	if err != nil {
		return "", "", false
	}
	op, _, _, found := j.declared.Find(req)
	if !found || op == nil {
		return "", "", false
	}
	area = "other"
	if len(op.Tags) > 0 {
		area = op.Tags[0]
	}
	return op.OperationID, area, true
}

// chunkTypesOf reads the chunk types of the contract (InferenceChunk.type).
func chunkTypesOf(c *spec.Contract) []string {
	ref := c.Kin.Components.Schemas["InferenceChunk"]
	if ref == nil || ref.Value == nil || ref.Value.Properties["type"] == nil {
		return nil
	}
	s := ref.Value.Properties["type"].Value
	out := make([]string, 0, len(s.Enum))
	for _, v := range s.Enum {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// resultFieldsOf reads the properties of c's InferenceResult.
func resultFieldsOf(c *spec.Contract) map[string]*openapi3.Schema {
	ref := c.Kin.Components.Schemas["InferenceResult"]
	if ref == nil || ref.Value == nil {
		return nil
	}
	out := map[string]*openapi3.Schema{}
	for name, p := range ref.Value.Properties {
		if p != nil && p.Value != nil {
			out[name] = p.Value
		}
	}
	return out
}

// successStatusesOf reads the success statuses the reference names, by
// operation.
func successStatusesOf(c *spec.Contract) map[string]spec.Fact {
	out := map[string]spec.Fact{}
	for _, f := range c.Facts() {
		if f.Kind == spec.FactSuccessStatus {
			out[f.Op] = f
		}
	}
	return out
}

// headerDocsOf says, per operation and status, whether c documents
// response headers there.
func headerDocsOf(c *spec.Contract) map[string]bool {
	out := map[string]bool{}
	for _, item := range c.Kin.Paths.Map() {
		for _, op := range item.Operations() {
			for code, ref := range op.Responses.Map() {
				if ref != nil && ref.Value != nil && len(ref.Value.Headers) > 0 {
					out[op.OperationID+" "+code] = true
				}
			}
		}
	}
	return out
}

// documentsHeaders: a documented response with headers, or a status the
// operation documents only through a range or default (judged in full).
func (j *Judge) documentsHeaders(op string, status int) bool {
	code := strconv.Itoa(status)
	if j.headerDocs[op+" "+code] {
		return true
	}
	return j.headerDocs[op+" "+code[:1]+"XX"] || j.headerDocs[op+" default"] || status < 100 || status > 599 || http.StatusText(status) == ""
}
