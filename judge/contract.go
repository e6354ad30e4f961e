package judge

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"

	"contractkit/exchange"
	"contractkit/spec"
)

// The answer against the contract: validated against a view of
// spec/openapi.yaml, every mismatch a finding traced to the decision that
// shaped its rule (decisions.go), and the two views compared so that a
// mismatch only the contract as written has is a decided difference.

// Contract validates x's answer against a contract view and returns every
// mismatch, sorted, each with the decision nearest to its rule ("" when the
// rule is the seed's). Its class is Declared: Judged, which compares the
// two views, sets the classes. An answer to a request outside the
// contract, or an exchange without a whole answer, has none.
func Contract(c *spec.Contract, x *exchange.Exchange) Findings {
	if x.Error != "" || x.Status == 0 {
		return nil
	}
	req, err := http.NewRequest(x.Method, "http://contract.invalid"+x.Path, nil)
	if err != nil {
		return nil
	}
	req.URL.RawQuery = x.RawQuery
	if _, _, err := c.Router.FindRoute(req); err != nil {
		// Not a path (or method) of the contract: nothing to validate
		// against; the caller judges the envelope and the status itself.
		return nil
	}
	resp := &http.Response{
		StatusCode: x.Status,
		Header:     x.ResponseHeader.Clone(),
		Body:       io.NopCloser(bytes.NewReader(x.Raw)),
		Request:    req,
	}
	ok, errs := c.Validator.ValidateHttpResponse(req, resp)
	if ok {
		return nil
	}
	body, _ := ParseJSON(x.Raw)
	var out Findings
	var schema []*verrors.ValidationError
	for _, e := range errs {
		if len(e.SchemaValidationErrors) > 0 {
			schema = append(schema, e)
			continue
		}
		f := Finding{Rule: RuleContract, Expected: e.Message, Decision: responseDecision(c, req, x.Status)}
		if e.ValidationSubType == helpers.ResponseBodyResponseCode {
			f.Pointer, f.Rule, f.Expected, f.Got = RuleStatus, RuleStatus, "a status the operation documents", strconv.Itoa(x.Status)
		}
		out = append(out, f)
	}
	fs := fromValidation(schema, body)
	for i := range fs {
		fs[i].Decision = schemaDecision(c, req, x.Status, mediaType(x.ResponseHeader), fs[i].Pointer)
	}
	return append(out, fs...)
}

// contract judges x's answer to operation op against both views: a
// mismatch with the declared view is Declared, an undocumented status
// excepted (Decided, D-17: the condition-to-code mapping is ours) unless it
// is a success other than the one the reference names (§4.1 "HTTP 200 on
// success": successStatus); one only the contract as written has is
// Decided, with the decision that shaped its rule.
func (j *Judge) contract(op string, x *exchange.Exchange) Findings {
	decl := Contract(j.declared, x)
	strict := Contract(j.strict, x)
	var out Findings
	inDecl := map[string]bool{}
	for _, f := range decl {
		// A value the declared view refuses is a break of the seed's
		// rule; what the contract as written says of the same value at the
		// same place (its enum without null, say) adds nothing.
		inDecl[f.Pointer+"\x00"+f.Got] = true
		switch {
		case f.Rule == RuleStatus && j.seedSuccessBroken(op, x.Status):
			f = j.successStatusFinding(op, x.Status)
		case f.Rule == RuleStatus:
			f.Class = Decided
		default:
			f.Decision = ""
		}
		out = append(out, f)
	}
	for _, f := range strict {
		if inDecl[f.Pointer+"\x00"+f.Got] {
			continue
		}
		// Every relaxed keyword comes from an x-decision mark; a mismatch
		// without one is a mark the walk did not reach (on a parameter,
		// say): Decision stays "", the contract as written.
		f.Class = Decided
		out = append(out, f)
	}
	return out
}

func mediaType(h http.Header) string {
	v := h.Get("Content-Type")
	if plainMediaType(v) {
		return v // what mime.ParseMediaType returns for it, without its map
	}
	mt, _, err := mime.ParseMediaType(v)
	if err != nil {
		return ""
	}
	return mt
}

// seedSuccessBroken reports whether status is a success other than the one
// the reference names for op.
func (j *Judge) seedSuccessBroken(op string, status int) bool {
	f, ok := j.successStatus[op]
	return ok && status/100 == 2 && status != f.Want
}

// successStatusFinding is the break of op's named success status: declared,
// on the reference's clause, whatever the contract documents beside it.
func (j *Judge) successStatusFinding(op string, status int) Finding {
	f := j.successStatus[op]
	return Finding{Pointer: RuleStatus, Rule: RuleStatus, Expected: fmt.Sprintf("%v (the reference's success status)", f.Want),
		Got: strconv.Itoa(status), Clause: f.Clause}
}
