// Package ragas scores RAG answers with RAGAS-style metrics computed purely
// from the sample text.
//
// The real service scores evaluations with LLM-judged RAGAS metrics. A mock
// cannot call models, and a conformance suite needs the same input to give
// the same output on every run, so each metric here is a transparent
// lexical stand-in: same name, same range, same direction (higher is
// better), computed from token overlap. No models, randomness, maps
// iterated for floating-point sums, or clock reads are involved, so Score is
// fully deterministic.
//
// Text processing shared by all metrics:
//
//   - Tokens are maximal runs of Unicode letters or digits, lower-cased.
//     Everything else (punctuation, apostrophes, whitespace) separates
//     tokens, so "don't" yields "don" and "t".
//   - Content tokens are tokens not in a small English stop-word list
//     (articles, pronouns, auxiliaries, common prepositions). Without it
//     every sentence would "overlap" every context through "the" and "is".
//   - Sentences end at '.', '!' or '?' followed by whitespace or the end of
//     the text, and at line breaks; so "3.5" stays one token. Sentences
//     without content tokens are ignored by the sentence-based metrics.
//
// The metrics, each in [0,1] and rounded to 4 decimals:
//
//   - faithfulness: the share of answer sentences that are supported by
//     the contexts, a sentence being supported when at least half of its
//     distinct content tokens occur somewhere in the contexts and every
//     number it states does (a changed figure is the commonest
//     hallucination, and one token of many would not tip the share). 0 when
//     the answer has no content sentences.
//   - answer_relevancy: the cosine similarity of the term-frequency vectors
//     of the question's and the answer's content tokens. 0 when either is
//     empty.
//   - context_precision: the average precision of the contexts in the order
//     given: sum over relevant positions k of precision@k, divided by the
//     number of relevant contexts. A context is relevant when it shares at
//     least one content token with the ground truth, or with the question
//     when there is no ground truth. 0 when no context is relevant.
//   - context_recall: the share of ground-truth sentences supported by the
//     contexts (at least half of the sentence's distinct content tokens
//     occur in the contexts). When there is no ground truth there is nothing
//     to recall and the score is 1, so samples without references do not
//     drag an evaluation's mean down; but when there are no contexts either
//     it is 0, because nothing was retrieved and an empty sample must score
//     0 on every metric.
package ragas

import (
	"math"
	"strings"
	"unicode"
)

// Sample is one question/answer pair with the retrieved contexts, as sent
// in the `samples` array of POST /api/v1/evaluations/{id}/run-ragas.
type Sample struct {
	Question    string   `json:"question"`
	Answer      string   `json:"answer"`
	Contexts    []string `json:"contexts"`
	GroundTruth string   `json:"ground_truth,omitempty"`
}

// Scores holds the four RAGAS metrics of one sample (or their mean), each in
// [0,1] and rounded to 4 decimals so JSON output is stable and readable.
type Scores struct {
	Faithfulness     float64 `json:"faithfulness"`
	AnswerRelevancy  float64 `json:"answer_relevancy"`
	ContextPrecision float64 `json:"context_precision"`
	ContextRecall    float64 `json:"context_recall"`
}

// supportThreshold is the share of a sentence's distinct content tokens
// that must appear in the contexts for the sentence to count as supported.
// Half tolerates paraphrase of a few words while still rejecting sentences
// that merely mention one context term.
const supportThreshold = 0.5

// Score computes the metrics of one sample. It never panics, whatever the
// input (empty strings, nil contexts).
func Score(s Sample) Scores {
	ctx := contextVocabulary(s.Contexts)
	return Scores{
		Faithfulness:     round4(supportedShare(s.Answer, ctx, 0)),
		AnswerRelevancy:  round4(cosine(contentTokens(s.Question), contentTokens(s.Answer))),
		ContextPrecision: round4(contextPrecision(s)),
		ContextRecall:    round4(supportedShare(s.GroundTruth, ctx, recallWithoutReference(ctx))),
	}
}

// Mean returns the per-metric mean of all, rounded like Score. It returns
// the zero Scores for empty input rather than NaN, which JSON cannot encode.
func Mean(all []Scores) Scores {
	if len(all) == 0 {
		return Scores{}
	}
	var sum Scores
	for _, s := range all {
		sum.Faithfulness += s.Faithfulness
		sum.AnswerRelevancy += s.AnswerRelevancy
		sum.ContextPrecision += s.ContextPrecision
		sum.ContextRecall += s.ContextRecall
	}
	n := float64(len(all))
	return Scores{
		Faithfulness:     round4(sum.Faithfulness / n),
		AnswerRelevancy:  round4(sum.AnswerRelevancy / n),
		ContextPrecision: round4(sum.ContextPrecision / n),
		ContextRecall:    round4(sum.ContextRecall / n),
	}
}

// recallWithoutReference is the context_recall of a sample with no ground
// truth: vacuously 1, unless nothing was retrieved at all.
func recallWithoutReference(ctx map[string]bool) float64 {
	if len(ctx) == 0 {
		return 0
	}
	return 1
}

func isNumber(tok string) bool {
	for _, r := range tok {
		if r < '0' || r > '9' {
			return false
		}
	}
	return tok != ""
}

// supportedShare returns the share of text's content sentences that are
// supported by the vocabulary ctx, or ifNone when text has no content
// sentence.
func supportedShare(text string, ctx map[string]bool, ifNone float64) float64 {
	counted, supported := 0, 0
	for _, sent := range sentences(text) {
		toks := distinct(contentTokens(sent))
		if len(toks) == 0 {
			continue
		}
		counted++
		found, numbersFound := 0, true
		for _, t := range toks {
			if ctx[t] {
				found++
			} else if isNumber(t) {
				numbersFound = false
			}
		}
		if numbersFound && float64(found) >= supportThreshold*float64(len(toks)) {
			supported++
		}
	}
	if counted == 0 {
		return ifNone
	}
	return float64(supported) / float64(counted)
}

// contextPrecision is the average precision of s.Contexts in the given
// order against the ground truth (or the question when there is none).
func contextPrecision(s Sample) float64 {
	ref := contentTokens(s.GroundTruth)
	if len(ref) == 0 {
		ref = contentTokens(s.Question)
	}
	refSet := make(map[string]bool, len(ref))
	for _, t := range ref {
		refSet[t] = true
	}
	relevantSoFar := 0
	sumPrecision := 0.0
	for k, c := range s.Contexts {
		rel := false
		for _, t := range contentTokens(c) {
			if refSet[t] {
				rel = true
				break
			}
		}
		if rel {
			relevantSoFar++
			sumPrecision += float64(relevantSoFar) / float64(k+1)
		}
	}
	if relevantSoFar == 0 {
		return 0
	}
	return sumPrecision / float64(relevantSoFar)
}

// cosine returns the cosine similarity of the term-frequency vectors of a
// and b. Counts are integers, so the dot product and norms are exact and
// independent of map iteration order; only the final division and square
// root are floating point.
func cosine(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	ta, tb := termFreq(a), termFreq(b)
	var dot, na, nb int64
	for t, ca := range ta {
		na += ca * ca
		dot += ca * tb[t]
	}
	for _, cb := range tb {
		nb += cb * cb
	}
	return float64(dot) / math.Sqrt(float64(na)*float64(nb))
}

func termFreq(toks []string) map[string]int64 {
	m := make(map[string]int64, len(toks))
	for _, t := range toks {
		m[t]++
	}
	return m
}

// contextVocabulary is the set of content tokens over all contexts.
func contextVocabulary(contexts []string) map[string]bool {
	m := make(map[string]bool)
	for _, c := range contexts {
		for _, t := range contentTokens(c) {
			m[t] = true
		}
	}
	return m
}

// distinct returns toks without repeats, in first-occurrence order.
func distinct(toks []string) []string {
	seen := make(map[string]bool, len(toks))
	out := toks[:0:0]
	for _, t := range toks {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// round4 rounds to 4 decimals and clamps to [0,1], mapping NaN to 0, so no
// arithmetic corner case can leak an out-of-range or unencodable value.
func round4(x float64) float64 {
	if math.IsNaN(x) || x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	return math.Round(x*1e4) / 1e4
}

// sentences splits text at '.', '!' or '?' followed by whitespace or the end,
// and at line breaks.
func sentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	for i, r := range rs {
		end := r == '\n' || r == '\r'
		if r == '.' || r == '!' || r == '?' {
			end = i+1 == len(rs) || unicode.IsSpace(rs[i+1])
		}
		if end {
			if s := strings.TrimSpace(string(rs[start : i+1])); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

// contentTokens returns the lower-cased letter/digit tokens of text that
// are not stop words, in order, with repeats.
func contentTokens(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			if t := b.String(); !stopWords[t] {
				out = append(out, t)
			}
			b.Reset()
		}
	}
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		flush()
	}
	flush()
	return out
}

// stopWords is deliberately small: only words that carry no topic. Negations
// ("no", "not") are kept because they change what a sentence claims.
var stopWords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`
		a an the and or but if then than so as
		of to in on at by for with from into about over under
		is are was were be been being am do does did done has have had
		it its this that these those there here
		i me my we us our you your he him his she her they them their
		what which who whom whose when where why how
		can could will would shall should may might must
		also just very s t`) {
		m[w] = true
	}
	return m
}()
