package retrieval

import (
	"hash/fnv"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words are the words a generated answer is written with; gofakeit's
// Faker has them (Options.Words).
type Words interface {
	IntN(n int) int
	AdjectiveDescriptive() string
	NounAbstract() string
	Sentence(words ...int) string
}

// openers start a generated answer; each %s is filled in order with the
// topic and then adjective/noun pairs drawn from Words.
var openers = []string{
	"In general, %s depends on %s %s and %s %s.",
	"When it comes to %s, the most important factor is %s %s, followed by %s %s.",
	"A good way to think about %s is in terms of %s %s and %s %s.",
	"Most questions about %s come down to %s %s and %s %s.",
}

// generatedPieces writes a plausible answer about the query's key terms. It
// is deterministic: the words are drawn with a seed made of Seed and a
// hash of the normalised query.
func generatedPieces(query string, opt Options, want int) []piece {
	seed := uint64(opt.Seed) + queryHash(query)
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
	if opt.Words == nil {
		addf("The answer about " + topic + " is general.")
		return pieces
	}
	f := opt.Words(seed)
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
func statement(f Words) string {
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
