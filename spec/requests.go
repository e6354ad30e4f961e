package spec

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/cache"
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
//
// Before each check, its fast check (requestfast.go) may say the part
// passes; only a part it is not sure of goes through the validator, so the
// problems of a refused request are the validator's, word for word.
type RequestCheck struct {
	pathItem *v3.PathItem
	path     string
	params   []paramCheck
	body     check // nil for an operation without a request body
	// headers: the operation declares header or cookie parameters.
	headers bool
	fast    fastCheck
}

// paramCheck is the validator's check of one parameter location, and the
// fast check that may spare it (nil: none).
type paramCheck struct {
	in     string
	check  check
	passes func(*fastCheck, *http.Request) bool
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
	if rc.body == nil || rc.fast.body == nil || r.Body == nil || r.Body == http.NoBody {
		return rc.validate(r, nil, false)
	}
	// Read once for the fast check; the validator, if asked, reads the
	// same bytes, and the same error after them.
	body, err := io.ReadAll(r.Body)
	var rest io.Reader = bytes.NewReader(body)
	if err != nil {
		rest = io.MultiReader(rest, errReader{err})
	}
	r.Body = io.NopCloser(rest)
	if err != nil {
		return rc.validate(r, nil, false)
	}
	return rc.validate(r, body, true)
}

// ValidateBody is Validate for a request whose body the caller has read
// whole: body. r.Body is left as it was.
func (rc *RequestCheck) ValidateBody(r *http.Request, body []byte) (bool, []*verrors.ValidationError) {
	return rc.validate(r, body, true)
}

// validate runs the checks; read says body is the request's body.
func (rc *RequestCheck) validate(r *http.Request, body []byte, read bool) (bool, []*verrors.ValidationError) {
	_, errs := rc.ValidateParams(r)
	if rc.body == nil {
		return len(errs) == 0, errs
	}
	if read {
		if rc.fast.bodyPasses(r, body) {
			return len(errs) == 0, errs
		}
		orig := r.Body
		r.Body = io.NopCloser(bytes.NewReader(body))
		defer func() { r.Body = orig }()
	}
	if ok, e := rc.body(r, rc.pathItem, rc.path); !ok {
		errs = append(errs, e...)
	}
	return len(errs) == 0, errs
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// ValidateParams checks the request's parameters only: for a body the
// server reads and checks itself (a multipart upload, read as a stream).
func (rc *RequestCheck) ValidateParams(r *http.Request) (bool, []*verrors.ValidationError) {
	var errs []*verrors.ValidationError
	for _, c := range rc.params {
		if c.passes != nil && c.passes(&rc.fast, r) {
			continue
		}
		if ok, e := c.check(r, rc.pathItem, rc.path); !ok {
			errs = append(errs, e...)
		}
	}
	return len(errs) == 0, errs
}

// requestChecks builds the check of every operation of the validator's
// document, in the order ValidateHttpRequestSync runs them: path, cookie,
// header, query parameters, then the body.
// sc is the validator's schema cache, which the fast checks read.
func requestChecks(v validator.Validator, sc cache.SchemaCache, doc *v3.Document) (map[string]*RequestCheck, error) {
	pv, bv := v.GetParameterValidator(), v.GetRequestBodyValidator()
	out := map[string]*RequestCheck{}
	for path, item := range doc.Paths.PathItems.FromOldest() {
		for _, op := range item.GetOperations().FromOldest() {
			declared := map[string]bool{}
			params := append(append([]*v3.Parameter{}, item.Parameters...), op.Parameters...)
			for _, p := range params {
				declared[p.In] = true
			}
			rc := &RequestCheck{pathItem: item, path: path, headers: declared["header"] || declared["cookie"],
				fast: newFastCheck(sc, doc, path, op, params)}
			for _, loc := range []paramCheck{
				{"path", pv.ValidatePathParamsWithPathItem, (*fastCheck).pathPasses},
				{"cookie", pv.ValidateCookieParamsWithPathItem, nil},
				{"header", pv.ValidateHeaderParamsWithPathItem, nil},
				{"query", pv.ValidateQueryParamsWithPathItem, (*fastCheck).queryPasses},
			} {
				if declared[loc.in] {
					rc.params = append(rc.params, loc)
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
