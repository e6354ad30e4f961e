package conformance

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// Which decision governs a response or a field: the x-decision marks of
// spec/openapi.yaml, looked up on the documented response and along the
// schema, so a mismatch names the DECISIONS.md row that shaped it.

// decisionOf returns the DECISIONS.md row of an x-decision mark in ext
// (its "row" key), or "".
func decisionOf(ext map[string]any) string {
	m, ok := ext["x-decision"].(map[string]any)
	if !ok {
		return ""
	}
	row, _ := m["row"].(string)
	return row
}

// documentedResponse finds the contract's answer for req and status. routed
// is false when no operation matches req; resp is nil when the operation
// does not document status.
func documentedResponse(c *spec.Contract, req *http.Request, status int) (resp *openapi3.Response, routed bool) {
	route, _, err := c.Router.FindRoute(req)
	if err != nil {
		return nil, false
	}
	r := route.Operation.Responses.Status(status)
	if r == nil {
		return nil, true
	}
	return r.Value, true
}

func responseDecision(c *spec.Contract, req *http.Request, status int) string {
	r, routed := documentedResponse(c, req, status)
	switch {
	case !routed:
		return ""
	case r == nil:
		// An undocumented code: the condition-to-code mapping is ours.
		return "D-17"
	}
	return decisionOf(r.Extensions)
}

// schemaDecision walks the response schema along fieldPath and returns the
// innermost decision marked on the way (on a schema or on the response), so
// a mismatch can be traced to the DECISIONS.md row that shaped it.
func schemaDecision(c *spec.Contract, req *http.Request, status int, media, fieldPath string) string {
	r, routed := documentedResponse(c, req, status)
	switch {
	case !routed:
		return ""
	case r == nil:
		return "D-17"
	}
	found := decisionOf(r.Extensions)
	mt := r.Content.Get(media)
	if mt == nil || mt.Schema == nil {
		return found
	}
	s := mt.Schema.Value
	visit := func(s *openapi3.Schema) {
		if s != nil {
			if d := decisionOf(s.Extensions); d != "" {
				found = d
			}
		}
	}
	visit(s)
	for _, seg := range pathSegments(fieldPath) {
		if s == nil {
			break
		}
		if seg.index >= 0 {
			if s.Items == nil {
				break
			}
			s = s.Items.Value
		} else {
			p := s.Properties[seg.key]
			if p == nil {
				break
			}
			s = p.Value
		}
		visit(s)
	}
	return found
}
