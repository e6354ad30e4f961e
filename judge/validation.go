package judge

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"

	"contractkit/internal/textcut"
)

// libopenapi-validator's errors as findings: a schema failure's instance
// path becomes a JSON pointer (a parameter's is prefixed "query:limit"),
// its reason the expected and the got of the finding. The referenced
// schema and the offending document are never echoed; a short scalar value
// at the pointer is quoted as what came.

// fromValidation turns errs into findings, one per problem, sorted by
// pointer. body is the JSON document the body errors are about.
func fromValidation(errs []*verrors.ValidationError, body J) Findings {
	var out Findings
	for _, e := range errs {
		if e == nil {
			continue
		}
		prefix := ""
		if e.ValidationType == helpers.ParameterValidation && e.ParameterName != "" {
			prefix = e.ValidationSubType + ":" + e.ParameterName
		}
		if len(e.SchemaValidationErrors) == 0 {
			msg := e.Message
			if prefix == "" && e.Reason != "" && !strings.Contains(msg, e.Reason) {
				msg += ": " + e.Reason
			}
			out = append(out, Finding{Pointer: prefix, Rule: RuleSchema, Expected: textcut.Shorten(msg, 200)})
			continue
		}
		for _, s := range e.SchemaValidationErrors {
			path := s.InstancePath
			if prefix != "" && len(path) > 0 && path[0] == e.ParameterName {
				path = path[1:] // the parameter names itself
			}
			ptr := Pointer(path...)
			if len(s.InstancePath) == 0 && s.FieldPath != "" && prefix == "" {
				ptr = jsonPathPointer(s.FieldPath)
			}
			expected, got := splitReason(s.Reason)
			if m := missingProperty.FindStringSubmatch(s.Reason); m != nil {
				ptr, expected, got = ptr+Pointer(m[1]), "present (required)", "missing"
			}
			if got == "" && prefix == "" {
				if v, ok := body.Pointer(ptr); ok {
					got = scalarText(v.v)
				}
			}
			out = append(out, Finding{Pointer: prefix + ptr, Rule: RuleSchema, Expected: expected, Got: got})
		}
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return strings.Compare(a.Pointer+"\x00"+a.Expected+"\x00"+a.Got, b.Pointer+"\x00"+b.Expected+"\x00"+b.Got)
	})
	return slices.Compact(out)
}

var (
	gotWant         = regexp.MustCompile(`^got (.+), want (.+)$`)
	missingProperty = regexp.MustCompile(`^missing propert(?:y|ies) '([^']+)'$`)
)

// splitReason reads a schema failure's reason as what the rule wants and
// what came: "got string, want integer", "value must be 'success'".
func splitReason(reason string) (expected, got string) {
	if m := gotWant.FindStringSubmatch(reason); m != nil {
		return m[2], m[1]
	}
	return strings.TrimPrefix(reason, "value must be "), ""
}

// scalarText renders a short scalar for a report; "" for anything else.
func scalarText(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(textcut.Shorten(t, 80))
	case bool, json.Number, float64:
		return fmt.Sprint(t)
	}
	return ""
}
