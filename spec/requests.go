package spec

import (
	"fmt"
	"net/http"

	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi/datamodel/high/v3"
)

// RequestCheck validates the requests of one operation. It runs the same
// libopenapi-validator checks as Validator.ValidateHttpRequestSync, resolved
// once when the contract is built instead of on every request: the path
// item is known (the caller's router already matched the operation), and
// only the checks the operation can fail are run — a parameter location it
// declares, a body if it has one. Security is not among them: the contract
// is built without security validation (authentication is the server's).
type RequestCheck struct {
	pathItem *v3.PathItem
	path     string
	params   []check
	body     check // nil for an operation without a request body
	// headers: the operation declares header or cookie parameters.
	headers bool
}

// ReadsHeaders reports whether the check reads the request's headers
// beyond its Content-Type (header or cookie parameters): without them,
// its verdict depends only on the method, the URL, the Content-Type and
// the body.
func (rc *RequestCheck) ReadsHeaders() bool { return rc.headers }

type check func(*http.Request, *v3.PathItem, string) (bool, []*verrors.ValidationError)

// Request returns the check of the operation with the given operationId, or
// nil when the contract has none.
func (c *Contract) Request(operationID string) *RequestCheck { return c.requests[operationID] }

// Validate checks the request's parameters and, when the operation has one,
// its body (the body must be readable: a server that already read it puts a
// fresh reader back).
func (rc *RequestCheck) Validate(r *http.Request) (bool, []*verrors.ValidationError) {
	_, errs := rc.ValidateParams(r)
	if rc.body != nil {
		if ok, e := rc.body(r, rc.pathItem, rc.path); !ok {
			errs = append(errs, e...)
		}
	}
	return len(errs) == 0, errs
}

// ValidateParams checks the request's parameters only: for a body the
// server reads and checks itself (a multipart upload, read as a stream).
func (rc *RequestCheck) ValidateParams(r *http.Request) (bool, []*verrors.ValidationError) {
	var errs []*verrors.ValidationError
	for _, c := range rc.params {
		if ok, e := c(r, rc.pathItem, rc.path); !ok {
			errs = append(errs, e...)
		}
	}
	return len(errs) == 0, errs
}

// requestChecks builds the check of every operation of the validator's
// document, in the order ValidateHttpRequestSync runs them: path, cookie,
// header, query parameters, then the body.
func requestChecks(v validator.Validator, doc *v3.Document) (map[string]*RequestCheck, error) {
	pv, bv := v.GetParameterValidator(), v.GetRequestBodyValidator()
	out := map[string]*RequestCheck{}
	for path, item := range doc.Paths.PathItems.FromOldest() {
		for _, op := range item.GetOperations().FromOldest() {
			declared := map[string]bool{}
			for _, p := range append(append([]*v3.Parameter{}, item.Parameters...), op.Parameters...) {
				declared[p.In] = true
			}
			rc := &RequestCheck{pathItem: item, path: path, headers: declared["header"] || declared["cookie"]}
			for _, loc := range []struct {
				in    string
				check check
			}{
				{"path", pv.ValidatePathParamsWithPathItem},
				{"cookie", pv.ValidateCookieParamsWithPathItem},
				{"header", pv.ValidateHeaderParamsWithPathItem},
				{"query", pv.ValidateQueryParamsWithPathItem},
			} {
				if declared[loc.in] {
					rc.params = append(rc.params, loc.check)
				}
			}
			if op.RequestBody != nil {
				rc.body = bv.ValidateRequestBodyWithPathItem
			}
			if _, dup := out[op.OperationId]; dup || op.OperationId == "" {
				return nil, fmt.Errorf("%s: operationId %q is empty or repeated", path, op.OperationId)
			}
			out[op.OperationId] = rc
		}
	}
	return out, nil
}
