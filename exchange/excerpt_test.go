package exchange

import (
	"strings"
	"testing"
)

// ExcerptOf says what Excerpt says, from the head of the bytes only.
func TestExcerptOfIsExcerpt(t *testing.T) {
	for _, s := range []string{
		"",
		`{"status":"success"}`,
		strings.Repeat("a", ExcerptLimit),
		strings.Repeat("a", ExcerptLimit+1),
		strings.Repeat("é", ExcerptLimit+5),
		strings.Repeat("𝄞", 3*ExcerptLimit),
		strings.Repeat("a", ExcerptLimit-1) + "𝄞𝄞",
		"\xff\xfe" + strings.Repeat("z", 9000),
		`{"status":"success","data":[` + strings.Repeat(" ", 8<<20),
	} {
		if got, want := ExcerptOf([]byte(s)), Excerpt(s); got != want {
			t.Errorf("ExcerptOf(%.20q… %d bytes) = %.40q…, want %.40q…", s, len(s), got, want)
		}
	}
}
