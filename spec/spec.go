// Package spec is the one place that loads the API contract. It embeds
// openapi.yaml and builds, once per view, everything the other parts need: the
// kin-openapi document and router (routing), and the libopenapi-validator
// validator (request and response validation).
//
// Two views of the same document exist. Strict is the document as written,
// every decision of ours included; the mock server serves it and a --strict
// conformance run holds a server to it. Declared relaxes what the seed does
// not state (see Relax), so a default conformance run fails a server only on
// rules the seed declares.
package spec

import (
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/config"
)

// Document is the contract as written, OpenAPI 3.0.3 YAML.
//
//go:embed openapi.yaml
var Document []byte

// Contract is one loaded view of the document. It is immutable and safe for
// concurrent use once built.
type Contract struct {
	// Kin is the kin-openapi document, for routing and introspection.
	Kin *openapi3.T
	// Router finds the operation of a request (kin-openapi gorillamux).
	Router routers.Router
	// Validator validates requests and responses (libopenapi-validator).
	Validator validator.Validator
	// Operations lists every operation, sorted by path then method.
	Operations []Operation
	// Raw is the YAML this view was built from.
	Raw []byte
	// Limits are the request limits of the x-request-limits mark (D-15,
	// limits.go).
	Limits Limits

	requests  map[string]*RequestCheck  // by operationId (requests.go)
	responses map[string]*ResponseCheck // by operationId (responses.go)
	resources []*Resource               // resources.go
	routes    *routeCache               // nil: the router is asked every time
	facts     func() []Fact             // facts.go, read once on first use
}

// Operation is one method on one path of the contract.
type Operation struct {
	ID     string
	Method string
	Path   string
	// Statuses are the documented response codes, sorted ("200", "400", ...).
	Statuses []string
	// Cost is what a successful call creates or starts that the account
	// pays for (the x-cost mark, cost.go); nil for an operation without.
	Cost *Cost
	// Clause is the seed clause that states the operation, its x-seed mark
	// ("4.1.3": the third endpoint of §4.1 in the seed's order); "" for an
	// operation without one.
	Clause string
}

var (
	strictOnce   = sync.OnceValues(func() (*Contract, error) { return Build(Document) })
	declaredOnce = sync.OnceValues(func() (*Contract, error) {
		raw, err := Relax(Document)
		if err != nil {
			return nil, err
		}
		return Build(raw)
	})
)

// Strict returns the contract as written. The embedded document is proven
// loadable by this package's tests, so a failure here is a build defect and
// panics rather than burdening every caller with an impossible error.
func Strict() *Contract { return must(strictOnce()) }

// Declared returns the contract with every decided constraint relaxed.
func Declared() *Contract { return must(declaredOnce()) }

func must(c *Contract, err error) *Contract {
	if err != nil {
		panic("spec: embedded contract does not load: " + err.Error())
	}
	return c
}

// Build loads raw (OpenAPI 3.0.3 YAML) with both libraries and validates it
// under both. Everything that parses the contract goes through here.
func Build(raw []byte) (*Contract, error) {
	loader := openapi3.NewLoader()
	kin, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("kin-openapi load: %w", err)
	}
	if err := kin.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("kin-openapi validate: %w", err)
	}
	router, err := gorillamux.NewRouter(kin)
	if err != nil {
		return nil, fmt.Errorf("kin-openapi router: %w", err)
	}

	lib, err := libopenapi.NewDocument(raw)
	if err != nil {
		return nil, fmt.Errorf("libopenapi load: %w", err)
	}
	// The validator's schema cache, held here: the answer checks read the
	// schemas it compiled (responses.go).
	schemas := cache.NewDefaultCache()
	v, errs := validator.NewValidator(lib,
		config.WithSchemaCache(schemas),
		config.WithStandardBodyDecoders(),
		config.WithFormatAssertions(),
		// Authentication is the server's job (and the suite's checks); the
		// validator judges shapes only.
		config.WithoutSecurityValidation(),
		// Without a cache the validator compiles a regular expression for
		// every path segment of every request (half the mock's CPU under
		// load). The keys are the contract's own path segments, a fixed
		// set, so the cache cannot grow with traffic.
		config.WithRegexCache(&sync.Map{}),
	)
	if len(errs) > 0 {
		return nil, fmt.Errorf("libopenapi-validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		msgs := make([]string, 0, len(verrs))
		for _, e := range verrs {
			msgs = append(msgs, e.Error())
		}
		return nil, fmt.Errorf("libopenapi-validator document: %s", strings.Join(msgs, "; "))
	}
	model, err := lib.BuildV3Model() // the validator's own model: BuildV3Model caches it
	if err != nil {
		return nil, fmt.Errorf("libopenapi model: %w", err)
	}
	requests, err := requestChecks(v, schemas, &model.Model)
	if err != nil {
		return nil, err
	}
	responses := responseChecks(schemas, &model.Model)
	ops, err := operations(kin)
	if err != nil {
		return nil, err
	}
	limits, err := limitsOf(kin)
	if err != nil {
		return nil, err
	}
	c := &Contract{Kin: kin, Router: router, Validator: v, Operations: ops, Raw: raw, Limits: limits,
		requests: requests, responses: responses, resources: resourcesOf(kin)}
	c.facts = sync.OnceValue(c.readFacts)
	if pathOnlyServers(kin) {
		c.routes = &routeCache{}
	}
	return c, nil
}

func operations(doc *openapi3.T) ([]Operation, error) {
	var ops []Operation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var codes []string
			for code := range op.Responses.Map() {
				codes = append(codes, code)
			}
			sort.Strings(codes)
			cost, err := costOf(op)
			if err != nil {
				return nil, err
			}
			clause, _ := op.Extensions["x-seed"].(string)
			ops = append(ops, Operation{ID: op.OperationID, Method: method, Path: path, Statuses: codes, Cost: cost, Clause: clause})
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops, nil
}

// Find returns the operation and path parameters of a request, or ok=false
// when no path of the contract matches. methodKnown reports whether the path
// exists under another method (so the caller can answer 405, not 404).
//
// What the router found is kept for the method and path (routecache.go),
// when the contract's servers leave the router nothing else to read.
func (c *Contract) Find(r *http.Request) (op *openapi3.Operation, params map[string]string, methodKnown bool, ok bool) {
	if c.routes == nil {
		return c.route(r).answer()
	}
	if f := c.routes.find(r); f != nil {
		return f.answer()
	}
	f := c.route(r)
	c.routes.keep(r, f)
	return f.answer()
}

// route asks the router.
func (c *Contract) route(r *http.Request) *routeFound {
	route, params, err := c.Router.FindRoute(r)
	switch {
	case err == nil:
		return &routeFound{op: route.Operation, params: params, methodKnown: true, found: true}
	case err == routers.ErrMethodNotAllowed:
		return &routeFound{methodKnown: true}
	}
	return &routeFound{}
}

// pathOnlyServers reports whether every server of doc is a relative URL
// without variables, so that the router matches a request on its method
// and path alone (no host, no scheme).
func pathOnlyServers(doc *openapi3.T) bool {
	for _, s := range doc.Servers {
		if !strings.HasPrefix(s.URL, "/") || strings.HasPrefix(s.URL, "//") || strings.Contains(s.URL, "{") {
			return false
		}
	}
	for _, item := range doc.Paths.Map() {
		if len(item.Servers) > 0 {
			return false
		}
	}
	return true
}

// Operation returns the operation with the given operationId.
func (c *Contract) Operation(id string) (Operation, bool) {
	for _, op := range c.Operations {
		if op.ID == id {
			return op, true
		}
	}
	return Operation{}, false
}
