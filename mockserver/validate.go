package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	verrors "github.com/pb33f/libopenapi-validator/errors"

	"contractkit/mockserver/apierr"
	"contractkit/spec"
)

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
