package spec

import (
	"regexp"
	"slices"
	"strings"

	verrors "github.com/pb33f/libopenapi-validator/errors"
)

// Describe turns libopenapi-validator errors into one readable line per
// problem, "field: rule" ("temperature: maximum: got 1.5, want 1"). Every
// problem is kept, not only the first; the referenced schema and the
// offending document are never echoed, so a line is safe to show a client.
func Describe(errs []*verrors.ValidationError) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, e := range errs {
		if e == nil {
			continue
		}
		if len(e.SchemaValidationErrors) > 0 {
			// The library lists them in map order; sorted, the same request
			// always gets the same message.
			lines := make([]string, 0, len(e.SchemaValidationErrors))
			for _, f := range e.SchemaValidationErrors {
				lines = append(lines, fieldName(f.FieldPath, e.ParameterName)+": "+SortedReason(f.Reason))
			}
			slices.Sort(lines)
			for _, l := range lines {
				add(l)
			}
			continue
		}
		msg := e.Message
		if e.Reason != "" && !strings.Contains(msg, e.Reason) {
			msg += ": " + e.Reason
		}
		if e.ParameterName != "" && !strings.Contains(msg, e.ParameterName) {
			msg = e.ParameterName + ": " + msg
		}
		add(msg)
	}
	return out
}

// fieldName makes a JSONPath ("$.data.items[0].id") readable ("data.items[0].id").
func fieldName(path, param string) string {
	p := strings.TrimPrefix(strings.TrimPrefix(path, "$"), ".")
	switch {
	case p != "" && param != "":
		return param + "." + p
	case p != "":
		return p
	case param != "":
		return param
	}
	return "body"
}

// additionalNames finds the list in the validator's "additional properties
// 'b', 'a' not allowed", which it writes in map order.
var additionalNames = regexp.MustCompile(`(additional propert(?:y|ies) )('[^']*'(?:, '[^']*')*)( not allowed)`)

// SortedReason returns a validator's reason with the names of the
// additional properties it lists sorted, so the same body always reads
// the same.
func SortedReason(reason string) string {
	return additionalNames.ReplaceAllStringFunc(reason, func(m string) string {
		parts := additionalNames.FindStringSubmatch(m)
		names := strings.Split(parts[2], ", ")
		slices.Sort(names)
		return parts[1] + strings.Join(names, ", ") + parts[3]
	})
}
