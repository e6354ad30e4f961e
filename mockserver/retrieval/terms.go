package retrieval

import (
	"strings"
	"unicode"
)

// stopWords are dropped from passages and queries: they match everywhere
// and would let "what is the" outrank the words that carry the question.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at
		be because been before being below between both but by can could did do does doing done down during
		each either else ever few for from further get got had has have having he her here hers herself him
		himself his how i if in into is it its itself just let me more most my myself no nor not of off on
		once only or other our ours ourselves out over own please same she should so some such tell than
		that the their theirs them themselves then there these they this those through to too under until up
		upon us very was we were what when where which while who whom whose why will with would you your
		yours yourself yourselves s t d ll m re ve`) {
		stopWords[w] = true
	}
}

// forEachTerm calls fn with each indexable term of s: lower-cased runs of
// letters and digits, stop words and single letters dropped, lightly
// stemmed. The same function serves passages and queries, so "shipping",
// "shipped" and "ships" all meet at "ship".
func forEachTerm(s string, fn func(term string)) {
	var buf []rune
	emit := func() {
		if len(buf) == 0 {
			return
		}
		single := len(buf) == 1 && !unicode.IsDigit(buf[0])
		w := string(buf)
		buf = buf[:0]
		if single || stopWords[w] {
			return
		}
		fn(stem(w))
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			buf = append(buf, unicode.ToLower(r))
			continue
		}
		emit()
	}
	emit()
}

// stem strips common English inflections: plural "s"/"ies"/"sses",
// and "ing"/"ed" (undoubling a final consonant: "shipped" → "ship"). It is
// deliberately light; queries and passages are stemmed alike, so
// consistency matters more than linguistic accuracy.
func stem(w string) string {
	if len(w) <= 3 || strings.ContainsFunc(w, unicode.IsDigit) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = undouble(w[:len(w)-2])
	}
	return w
}

// undouble turns a doubled final consonant into one ("shipp" → "ship"),
// except l, s and z, which English keeps doubled ("bill", "pass", "buzz").
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && strings.IndexByte("bcdfgkmnprt", w[n-1]) >= 0 {
		return w[:n-1]
	}
	return w
}
