package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// This file judges responses: the envelope rules (seed §1), the content
// type, and the body against the contract. Each judge returns problems, one
// readable line each, so a check can report every mismatch at once.

// JSONContentTypeProblems checks that the response is application/json; a
// charset (or any) parameter, or none, is accepted.
func JSONContentTypeProblems(h http.Header) []string {
	return contentTypeProblems(h, "application/json")
}

func contentTypeProblems(h http.Header, want string) []string {
	ct := h.Get("Content-Type")
	if ct == "" {
		return []string{fmt.Sprintf("Content-Type: missing, want %s", want)}
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return []string{fmt.Sprintf("Content-Type: %q does not parse: %v", ct, err)}
	}
	if !strings.EqualFold(mt, want) {
		return []string{fmt.Sprintf("Content-Type: %q, want %s", ct, want)}
	}
	return nil
}

// EnvelopeProblems checks body against envelope rule 1 (want "success":
// `{status: "success", data}`) or rule 2 (want "error": `{status: "error",
// message}` with a non-empty message string) of seed §1.
func EnvelopeProblems(body []byte, want string) []string {
	v, err := ParseJSON(body)
	if err != nil {
		return []string{fmt.Sprintf("body: not JSON (%v): %q", err, shorten(string(body), 120))}
	}
	obj, ok := v.v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("body: a JSON %s, want an object {status, %s}", jsonKind(v.v), map[string]string{"success": "data", "error": "message"}[want])}
	}
	var p []string
	switch status, ok := obj["status"].(string); {
	case !ok && obj["status"] == nil:
		p = append(p, fmt.Sprintf("$.status: missing, want %q", want))
	case !ok:
		p = append(p, fmt.Sprintf("$.status: a %s, want the string %q", jsonKind(obj["status"]), want))
	case status != want:
		p = append(p, fmt.Sprintf("$.status: %q, want %q", status, want))
	}
	switch want {
	case "success":
		if _, ok := obj["data"]; !ok {
			p = append(p, "$.data: missing (a successful response is {status, data})")
		}
	case "error":
		switch m, ok := obj["message"].(string); {
		case obj["message"] == nil:
			p = append(p, "$.message: missing (a failed response is {status, message})")
		case !ok:
			p = append(p, fmt.Sprintf("$.message: a %s, want a string", jsonKind(obj["message"])))
		case strings.TrimSpace(m) == "":
			p = append(p, "$.message: empty, want a message")
		}
	}
	return p
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	default:
		return "number"
	}
}

// StatusProblems checks the status code against the allowed ones; with
// none given, any 4xx is allowed.
func StatusProblems(x *Exchange, allowed ...int) []string {
	if x.Error != "" {
		return []string{"no response: " + x.Error}
	}
	if len(allowed) == 0 {
		if x.Status < 400 || x.Status > 499 {
			return []string{fmt.Sprintf("status: %d, want a 4xx client error", x.Status)}
		}
		return nil
	}
	for _, a := range allowed {
		if x.Status == a {
			return nil
		}
	}
	want := make([]string, len(allowed))
	for i, a := range allowed {
		want[i] = strconv.Itoa(a)
	}
	return []string{fmt.Sprintf("status: %d, want %s", x.Status, strings.Join(want, " or "))}
}

// Mismatch is one difference between a response and a contract view.
type Mismatch struct {
	// Text is the readable line ("$.data.status: value must be ... (got "ok")").
	Text string
	// Decision is the x-decision id nearest to the mismatched schema, or ""
	// when the rule is the seed's.
	Decision string
	// StatusCode is set when the mismatch is an undocumented status code.
	StatusCode bool
}

// ContractMismatches validates the response of x against a contract view and
// returns every mismatch, sorted, one line each: the field path, the reason,
// and the offending value when it is short. It never echoes the schema.
func ContractMismatches(c *spec.Contract, x *Exchange) []Mismatch {
	if x.Error != "" || x.Status == 0 {
		return nil
	}
	req, err := http.NewRequest(x.Method, "http://contract.invalid"+x.path, nil)
	if err != nil {
		return []Mismatch{{Text: "request: " + err.Error()}}
	}
	if u := queryOf(x.URL); u != "" {
		req.URL.RawQuery = u
	}
	if _, _, err := c.Router.FindRoute(req); err != nil {
		// Not a path (or method) of the contract: nothing to validate
		// against; the check judges the envelope and the status itself.
		return nil
	}
	resp := &http.Response{
		StatusCode: x.Status,
		Header:     x.ResponseHeader.Clone(),
		Body:       http.NoBody,
		Request:    req,
	}
	resp.Body = readCloser{bytes.NewReader(x.raw)}
	ok, errs := c.Validator.ValidateHttpResponse(req, resp)
	if ok {
		return nil
	}
	body, _ := ParseJSON(x.raw)
	var out []Mismatch
	for _, e := range errs {
		if len(e.SchemaValidationErrors) == 0 {
			out = append(out, Mismatch{
				Text:       "response: " + e.Message,
				StatusCode: e.ValidationSubType == "statusCode",
				Decision:   responseDecision(c, req, x.Status),
			})
			continue
		}
		for _, s := range e.SchemaValidationErrors {
			field := s.FieldPath
			if field == "" {
				field = "$"
			}
			line := fmt.Sprintf("%s: %s", field, s.Reason)
			if !strings.Contains(s.Reason, "got ") {
				if got, ok := body.Path(field); ok {
					if g := scalarText(got.v); g != "" {
						line += " (got " + g + ")"
					}
				}
			}
			out = append(out, Mismatch{Text: line, Decision: schemaDecision(c, req, x.Status, mediaType(x.ResponseHeader), field)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return dedupe(out)
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

func dedupe(ms []Mismatch) []Mismatch {
	var out []Mismatch
	for i, m := range ms {
		if i > 0 && ms[i-1].Text == m.Text {
			continue
		}
		out = append(out, m)
	}
	return out
}

func queryOf(u string) string {
	_, q, _ := strings.Cut(u, "?")
	return q
}

func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return mt
}

func scalarText(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(shorten(t, 80))
	case bool, json.Number, float64:
		return fmt.Sprint(t)
	}
	return ""
}

// decisionOf returns the id of an x-decision mark in ext, or "".
func decisionOf(ext map[string]any) string {
	m, ok := ext["x-decision"].(map[string]any)
	if !ok {
		return ""
	}
	id, _ := m["id"].(string)
	return id
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

type segment struct {
	key   string
	index int
}

// pathSegments parses the JSONPath subset the validator writes: $, .name,
// ['name'] and [n].
func pathSegments(p string) []segment {
	p = strings.TrimPrefix(p, "$")
	var out []segment
	for len(p) > 0 {
		switch {
		case p[0] == '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, segment{key: p[:end], index: -1})
			p = p[end:]
		case strings.HasPrefix(p, "['"):
			end := strings.Index(p, "']")
			if end < 0 {
				return out
			}
			out = append(out, segment{key: p[2:end], index: -1})
			p = p[end+2:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return out
			}
			n, err := strconv.Atoi(p[1:end])
			if err != nil {
				return out
			}
			out = append(out, segment{index: n})
			p = p[end+1:]
		default:
			return out
		}
	}
	return out
}

// J is a parsed JSON value with lenient accessors: a missing key or a
// value of another type gives the zero J, never a panic.
type J struct{ v any }

// ParseJSON parses b, keeping numbers exact (json.Number).
func ParseJSON(b []byte) (J, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return J{}, err
	}
	if dec.More() {
		return J{}, fmt.Errorf("more than one JSON value")
	}
	return J{v}, nil
}

// Get follows keys (strings) and indexes (ints).
func (j J) Get(path ...any) J {
	v := j.v
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k < 0 || k >= len(a) {
				return J{}
			}
			v = a[k]
		}
	}
	return J{v}
}

// Path resolves a JSONPath of the validator's subset.
func (j J) Path(p string) (J, bool) {
	v := j
	for _, s := range pathSegments(p) {
		if s.index >= 0 {
			a, ok := v.v.([]any)
			if !ok || s.index >= len(a) {
				return J{}, false
			}
			v = J{a[s.index]}
		} else {
			m, ok := v.v.(map[string]any)
			if !ok {
				return J{}, false
			}
			x, ok := m[s.key]
			if !ok {
				return J{}, false
			}
			v = J{x}
		}
	}
	return v, true
}

// Value returns the underlying value.
func (j J) Value() any { return j.v }

// Exists reports whether the value is present and not null.
func (j J) Exists() bool { return j.v != nil }

// Str returns the string, or "".
func (j J) Str() string { s, _ := j.v.(string); return s }

// IsString reports whether the value is a string.
func (j J) IsString() bool { _, ok := j.v.(string); return ok }

// ID renders an id given as a number or a string; "" for anything else.
func (j J) ID() string {
	switch t := j.v.(type) {
	case json.Number:
		return t.String()
	case string:
		return t
	}
	return ""
}

// Int returns the integer value and whether it is one.
func (j J) Int() (int64, bool) {
	n, ok := j.v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// Bool returns the boolean value and whether it is one.
func (j J) Bool() (bool, bool) { b, ok := j.v.(bool); return b, ok }

// Items returns the elements of an array (nil for anything else).
func (j J) Items() []J {
	a, _ := j.v.([]any)
	out := make([]J, len(a))
	for i, v := range a {
		out[i] = J{v}
	}
	return out
}

// IsArray reports whether the value is an array.
func (j J) IsArray() bool { _, ok := j.v.([]any); return ok }

// String renders the value as compact JSON.
func (j J) String() string {
	b, err := json.Marshal(j.v)
	if err != nil {
		return fmt.Sprint(j.v)
	}
	return string(b)
}
