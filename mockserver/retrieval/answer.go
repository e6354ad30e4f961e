package retrieval

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxTokens is the answer budget when Options.MaxTokens is not set.
// The interface document leaves the max_tokens default model-specific
// (section 8); 256 is a common default for chat models.
const DefaultMaxTokens = 256

// Response length preferences (response_length_preference, section 4.4).
const (
	LengthConcise  = "concise"
	LengthBalanced = "balanced"
	LengthDetailed = "detailed"
)

// Sentences per answer for each length preference.
const (
	conciseSentences  = 2
	balancedSentences = 4
	detailedSentences = 8
)

// Options shape one answer; they mirror the inference request fields.
type Options struct {
	// MaxTokens caps the answer at this many stream tokens; 0 or less
	// selects DefaultMaxTokens.
	MaxTokens int
	// Length is "concise" (at most 2 sentences), "balanced" (the default,
	// at most 4) or "detailed" (at most 8); any other value means balanced.
	// Generated answers always fill the count; grounded answers stop
	// earlier rather than quote sentences that do not match the query.
	Length string
	// BaseModel bypasses retrieval: the passages are ignored and the answer
	// is generated text with no sources, as the base_model flag asks.
	BaseModel bool
	// Seed makes generated answers reproducible: the same Seed and query
	// give the same answer.
	Seed int64
	// ModelName names the model in the note that accompanies a generated
	// answer when no uploaded file was relevant; empty means "the model".
	ModelName string
	// Words draws the words of a generated answer from a seed: the mock's
	// are gofakeit's (package store). retrieval links no word generator of
	// its own, so a tool that only reads files (the proxy's recorder)
	// stays without one. Nil leaves a generated answer at its first
	// sentence.
	Words func(seed uint64) Words
}

// Answer is a composed answer ready to be streamed.
type Answer struct {
	// Text is the whole answer.
	Text string
	// Tokens is Text split into stream tokens: each word with the
	// whitespace and punctuation that follow it, so that
	// strings.Join(Tokens, "") == Text. len(Tokens) is the token count
	// reported as tokens_used.
	Tokens []string
	// Sources are the distinct passage sources quoted, in answer order.
	Sources []string
	// Grounded reports that the answer quotes uploaded passages rather than
	// generated text.
	Grounded bool
}

// piece is one sentence of an answer and the source it quotes ("" when
// generated).
type piece struct {
	text   string
	source string
}

// Compose answers query from passages (best first, as Search returns them).
//
// A grounded answer opens with the passage sentence that best matches the
// query, quoted verbatim and attributed ("According to handbook.md, the
// warranty period is 24 months."), then adds, by passage relevance, the
// sentences that match the query nearly as well, then sentences that directly
// follow a quoted one, until the Length budget is met. Sentences keep their
// reading order after the first.
// When no passage shares a term with the query, or BaseModel is set, the
// answer is generated text that mentions the query's key terms, seeded from
// Seed and the query so that it is deterministic. Either way the answer is
// cut to MaxTokens tokens.
func Compose(query string, passages []Passage, opt Options) Answer {
	budget := opt.MaxTokens
	if budget <= 0 {
		budget = DefaultMaxTokens
	}
	want := sentenceBudget(opt.Length)
	if !opt.BaseModel {
		if pieces := groundedPieces(query, passages, want); len(pieces) > 0 {
			return assemble(pieces, budget, true)
		}
	}
	return assemble(generatedPieces(query, opt, want), budget, false)
}

func sentenceBudget(length string) int {
	switch strings.ToLower(strings.TrimSpace(length)) {
	case LengthConcise:
		return conciseSentences
	case LengthDetailed:
		return detailedSentences
	default:
		return balancedSentences
	}
}

// groundedPieces picks the sentences of a grounded answer, or returns nil
// when no passage is relevant to the query.
func groundedPieces(query string, passages []Passage, want int) []piece {
	qterms := map[string]bool{}
	forEachTerm(query, func(t string) { qterms[t] = true })
	if len(qterms) == 0 {
		return nil
	}
	matched := func(s string) []string {
		var out []string
		forEachTerm(s, func(t string) {
			if qterms[t] && !slices.Contains(out, t) {
				out = append(out, t)
			}
		})
		return out
	}
	// Best first by score; the stable sort keeps the caller's order for
	// equal (or unset) scores.
	ranked := slices.Clone(passages)
	slices.SortStableFunc(ranked, func(a, b Passage) int { return cmp.Compare(b.Score, a.Score) })

	// Candidate sentences of the passages that share a term with the
	// query, numbered in reading order (passage rank, then position) so
	// the chosen ones can be put back in that order.
	type candidate struct {
		text, source string
		rank, order  int      // passage rank; position in reading order
		terms        []string // distinct query terms in the sentence
		weight       float64
	}
	var cands []candidate
	seen := map[string]bool{}
	df := map[string]int{}
	rank := 0
	for _, p := range ranked {
		if len(matched(p.Text)) == 0 {
			continue
		}
		for _, s := range passageSentences(p.Text) {
			key := strings.ToLower(strings.Join(strings.Fields(s), " "))
			if seen[key] {
				continue // the same sentence in two files or passages
			}
			seen[key] = true
			c := candidate{text: s, source: p.Source, rank: rank, order: len(cands), terms: matched(s)}
			for _, t := range c.terms {
				df[t]++
			}
			cands = append(cands, c)
		}
		rank++
	}
	if len(cands) == 0 {
		return nil
	}
	// Weigh each sentence by how rare its query terms are among the
	// candidates: in a price list every row matches "price", and only the
	// row naming the item should be quoted.
	for i := range cands {
		for _, t := range cands[i].terms {
			cands[i].weight += math.Log(1 + float64(len(cands))/float64(df[t]))
		}
	}

	// The lead is the best-matching sentence of the best passage: it is the
	// one most likely to state the fact asked for, so it is quoted first.
	lead := 0
	for i, c := range cands {
		if c.rank != 0 {
			break
		}
		if c.weight > cands[lead].weight {
			lead = i
		}
	}
	chosen := []candidate{cands[lead]}
	picked := map[int]bool{lead: true}
	// Then, by passage relevance, sentences that match the query nearly
	// as well as the lead.
	for i, c := range cands {
		if len(chosen) < want && !picked[i] && c.weight > 0 && c.weight >= cands[lead].weight/2 {
			chosen, picked[i] = append(chosen, c), true
		}
	}
	// If the length allows, a sentence right after a quoted one in the
	// same passage often carries the rest of the fact ("It covers the
	// battery ..."), even without query terms. Records (key: value lines)
	// are independent, so a neighbouring record is never added.
	for i, c := range cands {
		if len(chosen) < want && !picked[i] && i > 0 && picked[i-1] &&
			cands[i-1].rank == c.rank && !looksKeyValue(c.text) {
			chosen, picked[i] = append(chosen, c), true
		}
	}
	slices.SortFunc(chosen[1:], func(a, b candidate) int { return a.order - b.order })

	pieces := make([]piece, 0, len(chosen))
	lastSource := ""
	for i, c := range chosen {
		text := withPeriod(c.text)
		if i == 0 || c.source != lastSource {
			text = "According to " + sourceLabel(c.source) + ", " + lowerFirst(text)
		}
		lastSource = c.source
		pieces = append(pieces, piece{text: text, source: c.source})
	}
	return pieces
}

func sourceLabel(source string) string {
	if strings.TrimSpace(source) == "" {
		return "the uploaded files"
	}
	return source
}

// withPeriod ends s as a sentence: CSV and JSON records carry no final
// punctuation of their own.
func withPeriod(s string) string {
	s = strings.TrimSpace(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	switch {
	case strings.ContainsRune(".!?…", last):
		return s
	case strings.ContainsRune(",;:", last):
		return s[:len(s)-1] + "."
	default:
		return s + "."
	}
}

// lowerFirst lower-cases the first word when it is a capitalised function
// word ("The", "Our"), so a quoted sentence reads naturally after
// "According to X,". Any other word is kept as written: it may be a name,
// and the quoted fact must stay verbatim.
func lowerFirst(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(s)
	}
	word := s[:end]
	r, size := utf8.DecodeRuneInString(word)
	if size == 0 || !unicode.IsUpper(r) || strings.ToLower(word[size:]) != word[size:] {
		return s
	}
	if !stopWords[strings.ToLower(word)] {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}
