package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitPassages cuts text into passages of up to maxPassageSentences
// sentences and about MaxPassageChars bytes. Blank lines end a passage.
// Lines are units of their own (CSV and JSON records are rendered one per
// line) unless a line plainly continues the previous one: hard-wrapped prose.
//
// Sentences of one line are joined by a space and separate lines by a
// newline, so that passageSentences can take a passage apart again.
func splitPassages(text string) []string {
	var passages []string
	var cur strings.Builder
	sentences := 0
	flush := func() {
		if cur.Len() > 0 {
			passages = append(passages, cur.String())
		}
		cur.Reset()
		sentences = 0
	}
	addSentence := func(s string, sep byte) {
		if sentences > 0 && (sentences >= maxPassageSentences || cur.Len()+1+len(s) > MaxPassageChars) {
			flush()
		}
		if cur.Len() > 0 {
			cur.WriteByte(sep)
		}
		cur.WriteString(s)
		sentences++
	}
	var unit strings.Builder
	prev := ""
	flushUnit := func() {
		sep := byte('\n')
		for _, s := range splitSentences(unit.String()) {
			for _, piece := range chop(s, MaxPassageChars) {
				addSentence(piece, sep)
				sep = ' '
			}
		}
		unit.Reset()
	}
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		if l == "" {
			flushUnit()
			flush()
			prev = ""
			continue
		}
		if unit.Len() > 0 && continues(prev, l) {
			unit.WriteByte(' ')
		} else {
			flushUnit()
		}
		unit.WriteString(l)
		prev = l
	}
	flushUnit()
	flush()
	return passages
}

// passageSentences splits a passage made by splitPassages into its
// sentences and lines (records).
func passageSentences(p string) []string {
	var out []string
	for line := range strings.Lines(p) {
		out = append(out, splitSentences(line)...)
	}
	return out
}

// continues reports whether line next reads as the continuation of line
// prev: prev does not end a sentence or clause, next starts in lower case,
// and neither looks like a "key: value" record.
func continues(prev, next string) bool {
	last, _ := utf8.DecodeLastRuneInString(prev)
	if strings.ContainsRune(".!?:;", last) {
		return false
	}
	// An opening bracket or quote does not start a new line of its own:
	// "...web interface" + "(advisory NW-SA-2025-01)." is one sentence.
	first, _ := utf8.DecodeRuneInString(strings.TrimLeft(next, "(['\"“‘"))
	if !unicode.IsLower(first) {
		return false
	}
	return !looksKeyValue(prev) && !looksKeyValue(next)
}

func looksKeyValue(s string) bool {
	i := strings.Index(s, ": ")
	return i > 0 && i < 40
}

// abbreviations are words whose trailing period does not end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "mr": true, "mrs": true, "ms": true,
	"dr": true, "prof": true, "st": true, "no": true, "inc": true, "ltd": true, "co": true,
	"jr": true, "sr": true, "fig": true, "approx": true, "dept": true, "est": true,
}

// splitSentences splits s after '.', '!' or '?' (and any closing quotes or
// brackets) when followed by a space and a capital letter, digit or opening
// quote, unless the period ends a known abbreviation or an initial.
func splitSentences(s string) []string {
	s = strings.TrimSpace(s)
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte(`"')]`, s[j]) >= 0 {
			j++
		}
		if j >= len(s) || s[j] != ' ' {
			continue
		}
		k := j
		for k < len(s) && s[k] == ' ' {
			k++
		}
		if k >= len(s) {
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[k:])
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) && !strings.ContainsRune(`"'(“‘`, r) {
			continue
		}
		if c == '.' && isAbbreviation(s[start:i]) {
			continue
		}
		if sent := strings.TrimSpace(s[start:j]); sent != "" {
			out = append(out, sent)
		}
		start = k
		i = k - 1
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// isAbbreviation reports whether the text before a period ends with an
// abbreviation or a single-letter initial ("J. Smith").
func isAbbreviation(before string) bool {
	i := strings.LastIndexAny(before, " (\"'")
	w := strings.ToLower(before[i+1:])
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsLetter(r)
	}
	return abbreviations[w]
}

// chop cuts s into pieces of at most n bytes at spaces (or at a rune
// boundary when a single word is longer), for sentences that would not fit
// one passage.
func chop(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := strings.LastIndexByte(s[:n+1], ' ')
		if cut <= 0 {
			cut = n
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		out = append(out, strings.TrimSpace(s[:cut]))
		s = strings.TrimSpace(s[cut:])
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
