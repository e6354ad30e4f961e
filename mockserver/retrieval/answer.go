package retrieval

import (
	"cmp"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/brianvoe/gofakeit/v7"
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

// ---- generated answers ----

// openers start a generated answer; each %s is filled in order with the
// topic and then adjective/noun pairs from gofakeit.
var openers = []string{
	"In general, %s depends on %s %s and %s %s.",
	"When it comes to %s, the most important factor is %s %s, followed by %s %s.",
	"A good way to think about %s is in terms of %s %s and %s %s.",
	"Most questions about %s come down to %s %s and %s %s.",
}

// generatedPieces writes a plausible answer about the query's key terms. It
// is deterministic: the faker is seeded from Seed and a hash of the
// normalised query.
func generatedPieces(query string, opt Options, want int) []piece {
	seed := uint64(opt.Seed) + queryHash(query)
	if seed == 0 {
		seed = 0x9E3779B97F4A7C15 // gofakeit.New(0) would seed from crypto randomness
	}
	f := gofakeit.New(seed)
	terms := keyTerms(query, 4)
	topic := joinTerms(terms)
	if topic == "" {
		topic = "this question"
	}

	var pieces []piece
	addf := func(s string) {
		if len(pieces) < want {
			pieces = append(pieces, piece{text: upperFirst(s)})
		}
	}
	if !opt.BaseModel {
		model := opt.ModelName
		if model == "" {
			model = "the model"
		}
		addf("None of the uploaded files covers " + topic + ", so " + model + " answers in general terms.")
	}
	opener := openers[f.IntN(len(openers))]
	addf(sprintf(opener, topic, f.AdjectiveDescriptive(), f.NounAbstract(), f.AdjectiveDescriptive(), f.NounAbstract()))
	for i := 0; len(pieces) < want; i++ {
		switch {
		case len(terms) > 0 && i%2 == 0:
			t := terms[(i/2+1)%len(terms)]
			addf("For " + t + ", " + lowerInitial(statement(f)))
		case i%3 == 1:
			addf("In practice, " + lowerInitial(statement(f)))
		default:
			addf(statement(f))
		}
	}
	return pieces
}

// statement returns a generated sentence that is one plain statement:
// gofakeit also produces exclamations and questions, which read oddly after
// "For X," and would break the sentence count of the length preference.
func statement(f *gofakeit.Faker) string {
	s := f.Sentence()
	for range 8 {
		if strings.HasSuffix(s, ".") && !strings.ContainsAny(s[:len(s)-1], ".!?") {
			return s
		}
		s = f.Sentence()
	}
	return strings.TrimRight(s, ".!? ") + "."
}

// sprintf fills %s verbs in order; it avoids fmt so that a '%' in the
// query cannot be read as a verb.
func sprintf(format string, args ...string) string {
	var b strings.Builder
	for {
		i := strings.Index(format, "%s")
		if i < 0 || len(args) == 0 {
			b.WriteString(format)
			return b.String()
		}
		b.WriteString(format[:i])
		b.WriteString(args[0])
		args, format = args[1:], format[i+2:]
	}
}

func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// lowerInitial lower-cases the first letter of a generated sentence so it can
// follow an introductory phrase.
func lowerInitial(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}

// queryHash hashes the query with case and spacing normalised, so that
// trivially different spellings of a question get the same answer.
func queryHash(query string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(strings.ToLower(strings.Join(strings.Fields(query), " "))))
	return h.Sum64()
}

// keyTerms returns up to n distinct content words of the query, as the user
// wrote them (lower-cased), skipping stop words and repeated stems.
func keyTerms(query string, n int) []string {
	var out, stems []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(out) == n {
			break
		}
		if stopWords[w] || utf8.RuneCountInString(w) == 1 && !unicode.IsDigit([]rune(w)[0]) {
			continue
		}
		if s := stem(w); !slices.Contains(stems, s) {
			stems = append(stems, s)
			out = append(out, w)
		}
	}
	return out
}

func joinTerms(terms []string) string {
	switch len(terms) {
	case 0:
		return ""
	case 1:
		return terms[0]
	default:
		return strings.Join(terms[:len(terms)-1], ", ") + " and " + terms[len(terms)-1]
	}
}

// ---- tokens ----

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
