package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/mockserver/apierr"
	"contractkit/spec"

	"contractkit/internal/textcut"
)

// Bounds of one override, beyond the JSON body limits of every request.
const (
	maxOverridePath    = 512     // characters of match.path
	maxOverrideFields  = 16      // fields of match.query and of match.body
	maxOverrideMessage = 1000    // characters of respond.message
	maxOverrideTimes   = 1000000 // times
	// maxOverrideBody bounds one override's body, a literal answer
	// included: an account's 100 overrides hold 25 MiB at most.
	maxOverrideBody = 256 << 10
)

// overrideRequest is the body of POST /admin/overrides.
type overrideRequest struct {
	Match   overrideMatch   `json:"match"`
	Respond overrideRespond `json:"respond"`
	Times   *int64          `json:"times"`
}

// parseOverride reads and checks a new override: unknown fields, an
// operation the contract does not have, an answer the operation cannot give
// or a literal answer that breaks its schema are refused, with the reason.
func (s *Server) parseOverride(r *http.Request) (*overrideRule, error) {
	if mt := mediaType(r.Header.Get("Content-Type")); mt != "" && mt != "application/json" {
		return nil, apierr.New(apierr.BadRequest, "Content-Type must be application/json (got %q)", textcut.Shorten(mt, 80))
	}
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxOverrideBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, apierr.New(apierr.TooLarge, "an override's body exceeds %d bytes", maxOverrideBody)
		}
		return nil, apierr.New(apierr.BadRequest, "request body could not be read")
	}
	if err := checkJSON(raw, s.bounds.limits.JSONDepth); err != nil {
		return nil, err
	}
	var req overrideRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, apierr.New(apierr.Invalid, "override: %s", overrideProblem(err))
	}
	if dec.More() {
		return nil, apierr.New(apierr.BadRequest, "request body holds more than one JSON value")
	}
	o := &overrideRule{Match: req.Match, Respond: req.Respond, Times: req.Times}
	op, err := s.resolveMatch(o)
	if err != nil {
		return nil, err
	}
	if err := s.checkRespond(o, op); err != nil {
		return nil, err
	}
	switch {
	case req.Times == nil:
		o.left.Store(-1)
	case *req.Times < 1 || *req.Times > maxOverrideTimes:
		return nil, apierr.New(apierr.Invalid, "times: from 1 to %d, or absent for until removed", maxOverrideTimes)
	default:
		o.left.Store(*req.Times)
	}
	return o, nil
}

// resolveMatch finds the operation match names: a path template of the
// contract ("/api/v1/user/model/{model_id}", any model) or a concrete path
// ("/api/v1/user/model/7", that model only), both through kin-openapi.
func (s *Server) resolveMatch(o *overrideRule) (*openapi3.Operation, error) {
	m := &o.Match
	m.Method = strings.ToUpper(strings.TrimSpace(m.Method))
	switch {
	case m.Method == "":
		return nil, apierr.New(apierr.Invalid, "match.method is required (GET, POST, PUT, PATCH or DELETE)")
	case m.Path == "":
		return nil, apierr.New(apierr.Invalid, "match.path is required: a path of the contract such as /api/v1/user/model/{model_id}, or a concrete one such as /api/v1/user/model/7")
	case len(m.Path) > maxOverridePath:
		return nil, apierr.New(apierr.Invalid, "match.path: at most %d characters", maxOverridePath)
	case len(m.Query) > maxOverrideFields || len(m.Body) > maxOverrideFields || len(m.Headers) > maxOverrideFields:
		return nil, apierr.New(apierr.Invalid, "match.query, match.body and match.headers: at most %d fields each", maxOverrideFields)
	}
	if err := canonicalHeaders(m); err != nil {
		return nil, err
	}
	var op *openapi3.Operation
	if strings.Contains(m.Path, "{") {
		item := s.contract.Kin.Paths.Find(m.Path)
		if item == nil {
			return nil, apierr.New(apierr.Invalid, "match.path %q is not a path of the contract (paths: %s)", textcut.Shorten(m.Path, 80), strings.Join(contractPaths(s.contract), ", "))
		}
		if op = item.GetOperation(m.Method); op == nil {
			return nil, apierr.New(apierr.Invalid, "match: the contract has no %s %s (methods there: %s)", m.Method, textcut.Shorten(m.Path, 80), strings.Join(methodsOf(item), ", "))
		}
	} else {
		u, err := url.Parse(m.Path)
		if err != nil || u.Path != m.Path || !strings.HasPrefix(m.Path, "/") {
			return nil, apierr.New(apierr.Invalid, "match.path %q: a path such as /api/v1/user/model/7, without query or host (a query goes in match.query)", textcut.Shorten(m.Path, 80))
		}
		found, params, methodKnown, ok := s.contract.Find(&http.Request{Method: m.Method, URL: u, Header: http.Header{}})
		if !ok {
			if methodKnown {
				return nil, apierr.New(apierr.Invalid, "match: the contract has no %s on %s", m.Method, textcut.Shorten(m.Path, 80))
			}
			return nil, apierr.New(apierr.Invalid, "match.path %q is no path of the contract (paths: %s)", textcut.Shorten(m.Path, 80), strings.Join(contractPaths(s.contract), ", "))
		}
		op, o.params = found, decoded(params)
	}
	if len(m.Body) > 0 && jsonRequest(op) == nil {
		return nil, apierr.New(apierr.Invalid, "match.body: %s takes no JSON body to compare", op.OperationID)
	}
	o.Operation = op.OperationID
	return op, nil
}

// canonicalHeaders checks match.headers and writes its names canonically:
// header names, values within bounds, and never a credential (an override
// is listed by GET /admin/overrides; a key must not be).
func canonicalHeaders(m *overrideMatch) error {
	if len(m.Headers) == 0 {
		return nil
	}
	out := make(map[string]string, len(m.Headers))
	for k, v := range m.Headers {
		name := http.CanonicalHeaderKey(strings.TrimSpace(k))
		switch {
		case !isToken(name):
			return apierr.New(apierr.Invalid, "match.headers: %q is not a header name", textcut.Shorten(k, 40))
		case name == "Authorization" || name == "Proxy-Authorization" || name == "Cookie":
			return apierr.New(apierr.Invalid, "match.headers: %s cannot be matched (an override acts on its own key's requests already)", name)
		case len(v) > maxOverrideMessage:
			return apierr.New(apierr.Invalid, "match.headers: the value of %s is over %d characters", name, maxOverrideMessage)
		}
		out[name] = v
	}
	m.Headers = out
	return nil
}

// checkRespond checks that respond is one answer the operation can give —
// at most one of a status, data, an example and a stream fault, with or
// without a delay before it and, for a stream, a pace of its own — and
// records its kind.
func (s *Server) checkRespond(o *overrideRule, op *openapi3.Operation) error {
	rs := &o.Respond
	var kinds []string
	if rs.Data != nil {
		kinds = append(kinds, kindData)
	} else if rs.Status != 0 {
		kinds = append(kinds, kindStatus)
	}
	if rs.Example != "" {
		kinds = append(kinds, kindExample)
	}
	if rs.StreamFault != "" {
		kinds = append(kinds, kindFault)
	}
	switch {
	case len(kinds) > 1:
		return apierr.New(apierr.Invalid, `respond: at most one of {"status": 503}, {"status": 200, "data": ...}, {"example": NAME}, {"stream_fault": "stall|cut|error"}, each with a "delay" if you like (got %s)`, strings.Join(kinds, ", "))
	case len(kinds) == 1:
		o.kind = kinds[0]
	case rs.Delay != nil:
		o.kind = kindDelay
	case rs.TokenInterval != nil:
		o.kind = kindPace
	default:
		return apierr.New(apierr.Invalid, `respond: one of {"status": 503}, {"status": 200, "data": ...}, {"example": NAME}, {"delay": "2s"}, {"stream_fault": "stall|cut|error"}, {"token_interval": "80ms"}`)
	}
	if (rs.Unchecked && o.kind != kindData) || (rs.Message != "" && o.kind != kindStatus) {
		return apierr.New(apierr.Invalid, "respond: unchecked goes with data, message with an error status")
	}
	if rs.Delay != nil {
		d, err := parseDelayJSON(rs.Delay)
		if err == nil && d.isZero() {
			err = errors.New("above 0")
		}
		if err != nil {
			return apierr.New(apierr.Invalid, "respond.delay: %v (a duration such as 250ms, or a range such as {\"min\": \"100ms\", \"max\": \"900ms\"}, at most %s)", err, MaxDelay)
		}
		o.delay = d
	}
	if rs.TokenInterval != nil {
		if !isStream(op) || (o.kind != kindFault && o.kind != kindDelay && o.kind != kindPace) {
			return apierr.New(apierr.Invalid, "respond.token_interval: paces an event stream (%s answers none here); it goes alone, with a delay or with a stream fault", op.OperationID)
		}
		d, err := parseDelayJSON(rs.TokenInterval)
		if err != nil {
			return apierr.New(apierr.Invalid, "respond.token_interval: %v", err)
		}
		o.pace = d
	}
	o.Documented = true
	switch o.kind {
	case kindStatus:
		if rs.Status < 400 || rs.Status > 599 {
			return apierr.New(apierr.Invalid, "respond.status %d: an error status (400..599); a success answer needs data", rs.Status)
		}
		if len(rs.Message) > maxOverrideMessage {
			return apierr.New(apierr.Invalid, "respond.message: at most %d characters", maxOverrideMessage)
		}
		o.Documented = op.Responses.Status(rs.Status) != nil
	case kindData:
		if rs.Status == 0 {
			rs.Status = http.StatusOK
		}
		if rs.Status < 200 || rs.Status > 299 {
			return apierr.New(apierr.Invalid, "respond.status %d: data is a success answer (2xx); an error is {\"status\": N} alone", rs.Status)
		}
		o.Documented = op.Responses.Status(rs.Status) != nil
		if !rs.Unchecked {
			return s.checkLiteral(o, op)
		}
	case kindExample:
		if media := jsonContent(op); media == nil || media.Examples[rs.Example] == nil || media.Examples[rs.Example].Value == nil {
			return apierr.New(apierr.Invalid, "respond.example %q is not an example of %s (examples: %s)", textcut.Shorten(rs.Example, 40), op.OperationID, strings.Join(exampleNames(jsonContent(op)), ", "))
		}
	case kindFault:
		rs.StreamFault = strings.ToLower(rs.StreamFault)
		if !isStream(op) {
			return apierr.New(apierr.Invalid, "respond.stream_fault: %s answers no event stream", op.OperationID)
		}
		if !slices.Contains([]string{faultStall, faultCut, faultError}, rs.StreamFault) {
			return apierr.New(apierr.Invalid, "respond.stream_fault: one of stall, cut, error (got %q)", textcut.Shorten(rs.StreamFault, 20))
		}
	}
	return nil
}

// checkLiteral validates a literal answer as the operation's response with
// libopenapi-validator: the envelope around data, with its status, for a
// request to the matched path (a template's parameters filled with "1").
func (s *Server) checkLiteral(o *overrideRule, op *openapi3.Operation) error {
	body, err := apierr.Marshal(apierr.Success{Status: "success", Data: o.Respond.Data})
	if err != nil {
		return apierr.New(apierr.Invalid, "respond.data: not encodable as JSON")
	}
	path := o.Match.Path
	for {
		i := strings.IndexByte(path, '{')
		j := strings.IndexByte(path, '}')
		if i < 0 || j < i {
			break
		}
		path = path[:i] + "1" + path[j+1:]
	}
	req := &http.Request{Method: o.Match.Method, URL: &url.URL{Path: path}, Header: http.Header{}}
	resp := &http.Response{
		StatusCode: o.Respond.Status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(body)), Request: req,
	}
	if ok, errs := s.contract.Validator.ValidateHttpResponse(req, resp); !ok {
		lines := spec.Describe(errs)
		return apierr.New(apierr.Invalid, "respond.data breaks the %d answer of %s: %s (send \"unchecked\": true to serve it anyway)",
			o.Respond.Status, op.OperationID, textcut.Shorten(strings.Join(lines, "; "), 600))
	}
	return nil
}

// jsonRequest is the operation's JSON request body, if it takes one.
func jsonRequest(op *openapi3.Operation) *openapi3.MediaType {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	return op.RequestBody.Value.Content.Get("application/json")
}

// isStream reports whether the operation's 200 answer is an event stream.
func isStream(op *openapi3.Operation) bool {
	resp := op.Responses.Status(http.StatusOK)
	return resp != nil && resp.Value != nil && resp.Value.Content.Get("text/event-stream") != nil
}

func contractPaths(c *spec.Contract) []string {
	var out []string
	for _, op := range c.Operations {
		if len(out) == 0 || out[len(out)-1] != op.Path {
			out = append(out, op.Path)
		}
	}
	return out
}

func methodsOf(item *openapi3.PathItem) []string {
	var out []string
	for m := range item.Operations() {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// overrideProblem names what a decoded override got wrong: a field it
// does not know, a value of the wrong type, or broken JSON.
func overrideProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s: want %s, got %s", textcut.Shorten(te.Field, 60), te.Type, te.Value)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Sprintf("unknown field %s", textcut.Shorten(f, 60))
	}
	return jsonProblem(err)
}

// overrideID reads the id of DELETE /admin/overrides/{id}.
func overrideID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, apierr.New(apierr.NotFound, "No override %q: ids are positive numbers (GET /admin/overrides lists them)", textcut.Shorten(s, 20))
	}
	return id, nil
}
