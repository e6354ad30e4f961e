// Package textcut shortens text quoted in messages and reports: the one
// truncation of the project (the mock's error messages, the suite's
// reports), so every cut is marked the same way and never splits a
// character.
package textcut

import "unicode/utf8"

// Shorten returns s when it has at most n characters, else its first n
// characters followed by "…".
func Shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}
