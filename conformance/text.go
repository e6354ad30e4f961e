package conformance

import (
	"fmt"
	"strings"
)

// quoteList renders a list of strings as ["a", "b"], for check messages.
func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
