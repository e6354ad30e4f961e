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

// sizeText renders a byte count as a check's text says it: in MiB or KiB
// when it is a whole number of them ("1 MiB"), in bytes otherwise.
func sizeText(n int64) string {
	switch {
	case n > 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n > 0 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
