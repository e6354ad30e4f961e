package retrieval

import (
	"slices"
	"strings"
	"unicode"
)

// assemble joins the pieces, splits them into stream tokens and cuts the
// answer to budget tokens. Sources lists the sources of the pieces that
// survive the cut.
func assemble(pieces []piece, budget int, grounded bool) Answer {
	var tokens []string
	starts := make([]int, len(pieces))
	for i, p := range pieces {
		toks := streamTokens(p.text)
		if len(tokens) > 0 && len(toks) > 0 {
			tokens[len(tokens)-1] += " "
		}
		starts[i] = len(tokens)
		tokens = append(tokens, toks...)
	}
	if len(tokens) > budget {
		tokens = tokens[:budget]
	}
	if n := len(tokens); n > 0 {
		// The last token keeps no trailing space: the answer ends there.
		tokens[n-1] = strings.TrimRightFunc(tokens[n-1], unicode.IsSpace)
	}
	a := Answer{Text: strings.Join(tokens, ""), Tokens: tokens, Grounded: grounded}
	if grounded {
		for i, p := range pieces {
			if starts[i] < len(tokens) && p.source != "" && !slices.Contains(a.Sources, p.source) {
				a.Sources = append(a.Sources, p.source)
			}
		}
	}
	return a
}

// streamTokens splits s into words, each carrying the punctuation and
// whitespace that follow it, the way a model streams text. Leading
// whitespace stays with the first word, so nothing is lost.
func streamTokens(s string) []string {
	var toks []string
	start, inSpace, word := 0, false, false
	for i, r := range s {
		if unicode.IsSpace(r) {
			inSpace = true
			continue
		}
		if inSpace && word {
			toks = append(toks, s[start:i])
			start = i
		}
		inSpace, word = false, true
	}
	if start < len(s) {
		toks = append(toks, s[start:])
	}
	return toks
}
