package spec

import (
	"fmt"
	"math"

	"github.com/getkin/kin-openapi/openapi3"
)

// Limits are the request limits no JSON Schema keyword can state (decision
// D-15): the document carries them once, in its root `x-request-limits`
// mark, so the mock, the proxy, the recorder and the suite read one number
// each instead of retyping it.
type Limits struct {
	// JSONBodyBytes is the largest JSON request body; over it: 413.
	JSONBodyBytes int64
	// MultipartBodyBytes is the largest multipart request body, whatever
	// the number of files in it (a file may fill it); over it: 413.
	MultipartBodyBytes int64
	// JSONDepth is the deepest nesting of a JSON request body; deeper: 400.
	JSONDepth int
	// FormFieldBytes is the largest text field of a multipart body; over
	// it: 422.
	FormFieldBytes int64
	// MultipartParts is the most parts one multipart body may have; over
	// it: 413.
	MultipartParts int
}

// limitsDecision is the DECISIONS.md row the x-request-limits mark names.
const limitsDecision = "D-15"

// RequestLimits returns the contract's request limits. Both views carry the
// same mark (Relax changes schemas only), so the strict one answers.
func RequestLimits() Limits { return Strict().Limits }

// limitsOf reads the document's x-request-limits mark. A missing or
// malformed mark is an error: without it the limits would silently fall
// back to a number typed somewhere else, the very copy the mark replaces.
func limitsOf(doc *openapi3.T) (Limits, error) {
	raw, ok := doc.Extensions["x-request-limits"]
	if !ok {
		return Limits{}, fmt.Errorf("the document has no x-request-limits mark (D-15)")
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return Limits{}, fmt.Errorf("x-request-limits is not a mapping {%s}", markKeys)
	}
	count := func(key string) (int64, error) {
		f, ok := m[key].(float64) // kin-openapi keeps extensions as decoded JSON
		if !ok || f != math.Trunc(f) || f < 1 || f > 1<<40 {
			return 0, fmt.Errorf("x-request-limits %s is %v, want a positive integer", key, m[key])
		}
		return int64(f), nil
	}
	for k := range m {
		switch k {
		case "json-body-bytes", "multipart-body-bytes", "json-depth", "form-field-bytes", "multipart-parts", "decision":
		default:
			return Limits{}, fmt.Errorf("x-request-limits has key %q; the mark is {%s}", k, markKeys)
		}
	}
	if d, _ := m["decision"].(string); d != limitsDecision {
		return Limits{}, fmt.Errorf("x-request-limits decision %q, want %s", d, limitsDecision)
	}
	var l Limits
	var err error
	if l.JSONBodyBytes, err = count("json-body-bytes"); err != nil {
		return Limits{}, err
	}
	if l.MultipartBodyBytes, err = count("multipart-body-bytes"); err != nil {
		return Limits{}, err
	}
	depth, err := count("json-depth")
	if err != nil {
		return Limits{}, err
	}
	l.JSONDepth = int(depth)
	if l.FormFieldBytes, err = count("form-field-bytes"); err != nil {
		return Limits{}, err
	}
	parts, err := count("multipart-parts")
	if err != nil {
		return Limits{}, err
	}
	l.MultipartParts = int(parts)
	return l, nil
}

// markKeys are the keys of the x-request-limits mark.
const markKeys = "json-body-bytes, multipart-body-bytes, json-depth, form-field-bytes, multipart-parts, decision"
