package spec

import (
	"fmt"
	"math"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The lookups below are how the rest of the kit reads a value the contract
// states about one request field (a length, a count, a default) instead of
// retyping it. Each names the operation by its operationId and fails with an
// error naming what is missing, so a caller that reads its values once at
// start-up stops there when the document stops stating one.

// KinOperation returns the kin-openapi operation with the given operationId.
func (c *Contract) KinOperation(id string) (*openapi3.Operation, error) {
	op, ok := c.Operation(id)
	if !ok {
		return nil, fmt.Errorf("contract: no operation %s", id)
	}
	return c.Kin.Paths.Find(op.Path).GetOperation(op.Method), nil
}

// RequestField returns the schema of the top-level field name of the body
// operation id takes in media type ("application/json",
// "multipart/form-data").
func (c *Contract) RequestField(id, media, name string) (*openapi3.Schema, error) {
	op, err := c.KinOperation(id)
	if err != nil {
		return nil, err
	}
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil, fmt.Errorf("contract: %s takes no request body", id)
	}
	mt := op.RequestBody.Value.Content.Get(media)
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil, fmt.Errorf("contract: %s takes no %s body", id, media)
	}
	p := mt.Schema.Value.Properties[name]
	if p == nil || p.Value == nil {
		return nil, fmt.Errorf("contract: the %s body of %s has no field %s", media, id, name)
	}
	return p.Value, nil
}

// QueryParam returns the schema of the query parameter name of operation id.
func (c *Contract) QueryParam(id, name string) (*openapi3.Schema, error) {
	op, err := c.KinOperation(id)
	if err != nil {
		return nil, err
	}
	p := op.Parameters.GetByInAndName(openapi3.ParameterInQuery, name)
	if p == nil || p.Schema == nil || p.Schema.Value == nil {
		return nil, fmt.Errorf("contract: %s has no query parameter %s", id, name)
	}
	return p.Schema.Value, nil
}

// SplitMark is the extension that marks a string field the server splits
// into a list (D-08: tags and URLs travel as one string), with the most
// items the list may hold (D-28). JSON Schema's maxItems cannot say it: the
// field is a string.
const SplitMark = "x-split"

// Split is what an x-split mark states.
type Split struct {
	// Separators are the characters between two items; blank items are
	// dropped and each item is trimmed.
	Separators string
	// MaxItems is the most items the split list may hold.
	MaxItems int
}

// SplitOf reads the x-split mark of a schema. ok is false when there is
// none; err reports a mark that does not state both separators and a
// positive whole maxItems.
func SplitOf(s *openapi3.Schema) (sp Split, ok bool, err error) {
	raw, ok := s.Extensions[SplitMark]
	if !ok {
		return Split{}, false, nil
	}
	m, isMap := raw.(map[string]any)
	seps, _ := m["separators"].(string)
	n, isNum := m["maxItems"].(float64)
	if !isMap || seps == "" || !isNum || n < 1 || n != math.Trunc(n) || n > math.MaxInt32 {
		return Split{}, true, fmt.Errorf("contract: %s %v: want {separators: a non-empty string, maxItems: a whole number of at least 1}", SplitMark, raw)
	}
	return Split{Separators: seps, MaxItems: int(n)}, true, nil
}

// EventMark names, on a text/event-stream answer of the contract, the schema
// of one event's JSON data (D-03): a reference to a component schema.
const EventMark = "x-event-schema"

// EventSchema returns the schema an event-stream media type names with its
// x-event-schema mark, or nil without one. kin-openapi keeps extensions
// unresolved, so the reference is looked up among the components.
func (c *Contract) EventSchema(mt *openapi3.MediaType) *openapi3.SchemaRef {
	if mt == nil {
		return nil
	}
	m, ok := mt.Extensions[EventMark].(map[string]any)
	if !ok {
		return nil
	}
	ref, _ := m["$ref"].(string)
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok || c.Kin.Components == nil {
		return nil
	}
	return c.Kin.Components.Schemas[name]
}
