package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	verrors "github.com/pb33f/libopenapi-validator/errors"

	"contractkit/mockserver/apierr"
	"contractkit/spec"

	"contractkit/internal/textcut"
)

// validate checks the request against the contract. JSON bodies are read
// (bounded), checked for syntax and depth (400), then the whole request goes
// through libopenapi-validator (422 for schema violations). Multipart bodies
// are left to their handlers, which read them as a stream.
func (s *Server) validate(c *call) error {
	if c.op.RequestBody != nil && c.op.RequestBody.Value != nil {
		rb := c.op.RequestBody.Value
		mt := mediaType(c.r.Header.Get("Content-Type"))
		hasBody := c.r.ContentLength > 0 || (c.r.ContentLength < 0 && c.r.Body != nil && c.r.Body != http.NoBody)
		switch {
		case rb.Content.Get("multipart/form-data") != nil:
			if mt != "multipart/form-data" {
				return apierr.New(apierr.BadRequest, "Content-Type must be multipart/form-data (got %q)", textcut.Shorten(mt, 80))
			}
			if err := c.in.setLimit(c.r, s.maxUpload()); err != nil {
				return multipartError(err, s.maxUpload())
			}
			return s.validateParams(c)
		case !hasBody && !rb.Required:
			// An optional body that is absent (rename with ?title=).
		default:
			if mt != "application/json" {
				if mt == "" && !hasBody {
					return apierr.New(apierr.BadRequest, "request body is required: send a JSON object with Content-Type: application/json")
				}
				return apierr.New(apierr.BadRequest, "Content-Type must be application/json (got %q)", textcut.Shorten(mt, 80))
			}
			err := c.in.setLimit(c.r, s.bounds.limits.JSONBodyBytes)
			var body []byte
			if err == nil {
				body, err = readJSONBody(c.r, s.bounds.limits.JSONBodyBytes)
			}
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					return apierr.New(apierr.TooLarge, "request body exceeds %d bytes", s.bounds.limits.JSONBodyBytes)
				}
				return apierr.New(apierr.BadRequest, "request body could not be read")
			}
			if err := checkJSON(body, s.bounds.limits.JSONDepth); err != nil {
				return err
			}
			c.body = body
		}
	}
	top := normalize(c)    // D-21: the seed's alternative spellings, rewritten into the declared shape
	s.stripUnknown(c, top) // D-29: fields the contract does not name, taken out and reported
	return s.validateRequest(c)
}

// readJSONBody reads a JSON body already bounded by limit. With a
// declared length within the bound it reads exactly that many bytes into
// one buffer (io.ReadAll would start at 512 bytes and grow); a body shorter
// than declared is an error, as it is for io.ReadAll.
func readJSONBody(r *http.Request, limit int64) ([]byte, error) {
	n := r.ContentLength
	if n <= 0 || n > limit {
		return io.ReadAll(r.Body)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.Body, b); err != nil {
		return nil, err
	}
	return b, nil
}

// validateParams checks the query of a multipart request, whose body its
// handler reads and checks as a stream.
func (s *Server) validateParams(c *call) error {
	if ok, errs := s.contract.Request(c.op.OperationID).ValidateParams(c.r); !ok {
		return invalid(errs)
	}
	return nil
}

// validateRequest checks the whole request, with the body already read, against
// the contract: the checks of its operation, resolved once (spec.RequestCheck),
// so the route the router found is not looked up again.
func (s *Server) validateRequest(c *call) error {
	check := s.contract.Request(c.op.OperationID)
	var ok bool
	var errs []*verrors.ValidationError
	if c.body != nil {
		// The body already read: the check judges these bytes and puts
		// them back for the validator only when it has to ask it.
		ok, errs = check.ValidateBody(c.r, c.body)
	} else {
		ok, errs = check.Validate(c.r)
	}
	if !ok {
		return invalid(errs)
	}
	return nil
}

// mediaType is the media type of a Content-Type header, without parameters.
func mediaType(h string) string {
	if h == "" {
		return ""
	}
	if !strings.Contains(h, ";") {
		// Without parameters ParseMediaType's answer is the trimmed,
		// lower-cased value, or an error whose fallback below is the same:
		// skip the map it allocates (every request and answer goes here).
		return strings.ToLower(strings.TrimSpace(h))
	}
	mt, _, err := mime.ParseMediaType(h)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(h))
	}
	return mt
}

// maxProblems bounds how many problems one 422 message lists.
const maxProblems = 5

// invalid is the 422 for contract violations: the message names each field
// and the rule it breaks (spec.Describe), never a schema dump.
func invalid(errs []*verrors.ValidationError) error {
	lines := spec.Describe(errs)
	if len(lines) == 0 {
		return apierr.New(apierr.Invalid, "request does not match the contract")
	}
	more := ""
	if len(lines) > maxProblems {
		more = "; and more"
		lines = lines[:maxProblems]
	}
	return apierr.New(apierr.Invalid, "%s%s", strings.Join(lines, "; "), more)
}

// checkJSON accepts exactly one JSON value nested at most maxDepth deep. It
// runs before schema validation so that a malformed body is a 400 and a
// deeply nested one cannot cost the validator anything.
func checkJSON(body []byte, maxDepth int) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return apierr.New(apierr.BadRequest, "request body is empty: send a JSON object")
	}
	// The common case, one well-formed value, is judged without allocating:
	// json.Valid, then a byte scan of the nesting. Anything else takes the
	// token walk below, which names the problem.
	if json.Valid(body) {
		if depth(body) > maxDepth {
			return apierr.New(apierr.BadRequest, "request body is nested deeper than %d levels", maxDepth)
		}
		return nil
	}
	return walkJSON(body, maxDepth)
}

// walkJSON is checkJSON's token walk: slower, but it names the first
// problem in the body.
func walkJSON(body []byte, maxDepth int) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	depth := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return apierr.New(apierr.BadRequest, "request body is not valid JSON: %s", jsonProblem(err))
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
				if depth > maxDepth {
					return apierr.New(apierr.BadRequest, "request body is nested deeper than %d levels", maxDepth)
				}
			default:
				depth--
			}
		}
		if depth == 0 && dec.More() {
			return apierr.New(apierr.BadRequest, "request body is not valid JSON: more than one value")
		}
	}
	if depth != 0 {
		return apierr.New(apierr.BadRequest, "request body is not valid JSON: unexpected end of input")
	}
	return nil
}

// depth is the deepest nesting of objects and arrays in a well-formed JSON
// value; brackets inside strings do not count.
func depth(body []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range body {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return "unreadable"
}
