package conformance

import (
	"fmt"
	"strings"

	"contractkit/internal/textcut"
)

// Text for messages and reports: a value cut short, a first line, a list
// quoted.

// shorten cuts s to its first n characters, marked with an ellipsis
// (excerpt builds on it): the project's one truncation, textcut.
func shorten(s string, n int) string { return textcut.Shorten(s, n) }

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// quoteList renders a list of strings as ["a", "b"].
func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
