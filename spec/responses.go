package spec

import (
	"strconv"

	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ResponseCheck says, for the answers of one operation, when
// libopenapi-validator's ValidateHttpResponse is sure to accept one, without
// running it: an answer with a status the operation documents by its code,
// a JSON media type that status documents with a schema and no response
// headers, and a body the schema accepts. The schema is the very one the
// validator compiled (its schema cache, warmed when the contract is built),
// applied to the body as the validator decodes it (encoding/json into an
// any: its canonical form already), so the verdict is the validator's. It
// never says "refused": anything it is not sure of (another status, a
// range or default answer, documented headers, a body the schema refuses)
// is for the validator to judge, with its own words for the problems.
//
// What it saves is the validator's work around the schema: finding the
// path again with its own router, hashing the schema to find its compiled
// form, building its options, reading and decoding the body twice.
type ResponseCheck struct {
	// bodies are the compiled body schemas by status code, then media
	// type ("application/json").
	bodies map[int]map[string]*jsonschema.Schema
}

// Response returns the answer check of an operation, or nil when the
// contract has none of that operationId.
func (c *Contract) Response(operationID string) *ResponseCheck { return c.responses[operationID] }

// Accepts reports whether the validator is sure to accept an answer with
// this status and Content-Type whose body, decoded by encoding/json into
// an any, is body. False means "not sure": ask the validator.
func (rc *ResponseCheck) Accepts(status int, contentType string, body any) bool {
	if rc == nil || body == nil {
		// A null body is not validated at all by the validator; leave
		// that to it.
		return false
	}
	media, _, _ := helpers.ExtractContentType(contentType)
	s := rc.bodies[status][media]
	return s != nil && s.Validate(body) == nil
}

// jsonMedia is the media type the fast check judges: the one the
// validator decodes with encoding/json (its JSON decoder), and the only
// one the contract's JSON answers are documented under.
const jsonMedia = "application/json"

// responseChecks reads, for every operation of doc, the compiled schemas of
// the answers a ResponseCheck may judge from the validator's schema cache
// sc (warmed when the validator was made). version is the document's
// OpenAPI version, as the validator keys its cache.
func responseChecks(sc cache.SchemaCache, doc *v3.Document) map[string]*ResponseCheck {
	version := helpers.VersionToFloat(doc.Version)
	out := map[string]*ResponseCheck{}
	for _, item := range doc.Paths.PathItems.FromOldest() {
		for _, op := range item.GetOperations().FromOldest() {
			rc := &ResponseCheck{bodies: map[int]map[string]*jsonschema.Schema{}}
			out[op.OperationId] = rc
			if op.Responses == nil || op.Responses.Codes == nil {
				continue
			}
			for code, resp := range op.Responses.Codes.FromOldest() {
				status, err := strconv.Atoi(code)
				if err != nil || resp == nil || resp.Headers != nil || resp.Content == nil {
					continue // a range ("4XX"), or headers to validate: the validator's
				}
				mt, ok := resp.Content.Get(jsonMedia)
				if !ok || mt == nil || mt.Schema == nil {
					continue
				}
				schema := mt.Schema.Schema()
				if schema == nil || schema.GoLow() == nil {
					continue
				}
				key := schema_validation.SchemaCacheKey(schema.GoLow().Hash(), version, schema_validation.SchemaValidationPurposeResponseBody)
				entry, ok := sc.Load(key)
				if !ok || entry == nil || entry.CompiledSchema == nil {
					continue
				}
				rc.bodies[status] = map[string]*jsonschema.Schema{jsonMedia: entry.CompiledSchema}
			}
		}
	}
	return out
}
