package judge

import (
	"net/http"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// Which decision governs an answer or a field: the x-decision marks of
// spec/openapi.yaml, looked up on the documented response and along the
// schema, so a finding names the DECISIONS.md row that shaped its rule.

// row is the DECISIONS.md row of an element's x-decision mark, or "".
func row(ext map[string]any) string {
	d, _ := spec.Mark(ext)
	return d.Row
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

// undocumentedStatus is the decision of a status code an operation does
// not document: the condition-to-code mapping is ours (seed §7).
const undocumentedStatus = "D-17"

func responseDecision(c *spec.Contract, req *http.Request, status int) string {
	r, routed := documentedResponse(c, req, status)
	switch {
	case !routed:
		return ""
	case r == nil:
		return undocumentedStatus
	}
	return row(r.Extensions)
}

// schemaDecision walks the answer's schema along pointer and returns the
// innermost decision marked on the way (on a schema or on the response).
func schemaDecision(c *spec.Contract, req *http.Request, status int, media, pointer string) string {
	r, routed := documentedResponse(c, req, status)
	switch {
	case !routed:
		return ""
	case r == nil:
		return undocumentedStatus
	}
	found := row(r.Extensions)
	mt := r.Content.Get(media)
	if mt == nil || mt.Schema == nil {
		return found
	}
	s := mt.Schema.Value
	visit := func(s *openapi3.Schema) {
		if s != nil {
			if d := row(s.Extensions); d != "" {
				found = d
			}
		}
	}
	visit(s)
	for _, seg := range pointerSegments(pointer) {
		if s == nil {
			break
		}
		if _, err := strconv.Atoi(seg); err == nil && s.Items != nil {
			s = s.Items.Value
		} else {
			p := s.Properties[seg]
			if p == nil {
				break
			}
			s = p.Value
		}
		visit(s)
	}
	return found
}
