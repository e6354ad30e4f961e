package retrieval

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// BM25 (Okapi) parameters: the usual defaults, which work well for short
// passages without tuning.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

const (
	// MaxPassages bounds the passages one Index holds, so that its memory
	// is bounded (roughly MaxPassages × MaxPassageChars of text plus the
	// postings). Passages added beyond it are dropped; Len tells the
	// caller how many were kept. 20 000 passages hold about eight files of
	// DefaultMaxTextBytes each.
	MaxPassages = 20000
	// MaxPassageChars is the target passage size in bytes. Passages are
	// small so that the sentence quoted in an answer is the one that
	// matched, not a neighbour from a long section.
	MaxPassageChars = 400
	// maxPassageSentences is the most sentences grouped in one passage.
	maxPassageSentences = 3
)

// Passage is a scored piece of an indexed text.
type Passage struct {
	// Source is the label given to Add, usually the file name.
	Source string
	// Text is the passage: up to three sentences or lines.
	Text string
	// Score is the BM25 score for the query; always > 0 in Search results.
	Score float64
}

// Index is a BM25 index over passages. It is safe for concurrent use: the
// server indexes uploads while other requests search.
type Index struct {
	// mu guards every field below. Add and Remove take the write lock;
	// Search and Len take the read lock so that queries run in parallel.
	// Passages are split and tokenised before the lock is taken, so an
	// upload being indexed blocks searches only while postings are updated.
	mu       sync.RWMutex
	postings map[string][]posting // term → passages containing it
	sources  map[string][]*entry  // source → its passages, for Remove
	count    int                  // live passages
	totalLen int                  // sum of entry.length, for the average passage length
	seq      uint64               // insertion counter, used to break score ties deterministically
}

// entry is one indexed passage. It is immutable once added, so Search may
// read it after releasing the lock.
type entry struct {
	source string
	text   string
	seq    uint64
	length int // number of indexed terms
	terms  []string
}

type posting struct {
	e  *entry
	tf int32
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		postings: map[string][]posting{},
		sources:  map[string][]*entry{},
	}
}

// Add splits text into passages of one to three sentences (at most about
// MaxPassageChars bytes, cut at sentence or line boundaries) and indexes them
// under source. Adding to an existing source appends; call Remove first to
// replace a file. Passages with no indexable words are skipped, and passages
// beyond MaxPassages are dropped.
func (ix *Index) Add(source, text string) {
	type prepared struct {
		text   string
		terms  []string
		tf     []int32
		length int
	}
	var batch []prepared
	for _, p := range splitPassages(text) {
		counts := map[string]int32{}
		length := 0
		forEachTerm(p, func(t string) {
			counts[t]++
			length++
		})
		if length == 0 {
			continue
		}
		pr := prepared{text: p, length: length}
		for t := range counts {
			pr.terms = append(pr.terms, t)
		}
		slices.Sort(pr.terms) // deterministic posting order
		for _, t := range pr.terms {
			pr.tf = append(pr.tf, counts[t])
		}
		batch = append(batch, pr)
	}
	if len(batch) == 0 {
		return
	}

	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, pr := range batch {
		if ix.count >= MaxPassages {
			return
		}
		ix.seq++
		e := &entry{source: source, text: pr.text, seq: ix.seq, length: pr.length, terms: pr.terms}
		for i, t := range pr.terms {
			ix.postings[t] = append(ix.postings[t], posting{e: e, tf: pr.tf[i]})
		}
		ix.sources[source] = append(ix.sources[source], e)
		ix.count++
		ix.totalLen += pr.length
	}
}

// Remove drops every passage of source, e.g. when a file or its dataset is
// deleted. Removing an unknown source does nothing.
func (ix *Index) Remove(source string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	entries := ix.sources[source]
	if len(entries) == 0 {
		return
	}
	gone := make(map[*entry]bool, len(entries))
	terms := map[string]bool{}
	for _, e := range entries {
		gone[e] = true
		for _, t := range e.terms {
			terms[t] = true
		}
		ix.count--
		ix.totalLen -= e.length
	}
	// Each affected posting list is filtered once, so removing a large
	// file costs the size of those lists, not passages × list size.
	for t := range terms {
		ps := slices.DeleteFunc(ix.postings[t], func(p posting) bool { return gone[p.e] })
		if len(ps) == 0 {
			delete(ix.postings, t)
		} else {
			ix.postings[t] = ps
		}
	}
	delete(ix.sources, source)
}

// Len returns the number of passages indexed.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.count
}

// Search returns up to k passages ranked by BM25 score for query, best first.
// Only passages sharing at least one term with the query (score > 0) are
// returned; equal scores keep insertion order so results are deterministic.
// k <= 0 returns nil.
func (ix *Index) Search(query string, k int) []Passage {
	if k <= 0 {
		return nil
	}
	var terms []string
	forEachTerm(query, func(t string) {
		if !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	})
	if len(terms) == 0 {
		return nil
	}

	scores := map[*entry]float64{}
	ix.mu.RLock()
	if ix.count > 0 {
		n := float64(ix.count)
		avg := float64(ix.totalLen) / n
		for _, t := range terms {
			ps := ix.postings[t]
			if len(ps) == 0 {
				continue
			}
			df := float64(len(ps))
			// The "+1" form of IDF (as in Lucene) stays positive for
			// terms in more than half of the passages, so every match
			// scores above zero.
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			for _, p := range ps {
				tf := float64(p.tf)
				norm := bm25K1 * (1 - bm25B + bm25B*float64(p.e.length)/avg)
				scores[p.e] += idf * tf * (bm25K1 + 1) / (tf + norm)
			}
		}
	}
	ix.mu.RUnlock()

	hits := make([]*entry, 0, len(scores))
	for e, s := range scores {
		if s > 0 {
			hits = append(hits, e)
		}
	}
	slices.SortFunc(hits, func(a, b *entry) int {
		if sa, sb := scores[a], scores[b]; sa != sb {
			if sa > sb {
				return -1
			}
			return 1
		}
		if a.seq < b.seq {
			return -1
		}
		return 1
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	out := make([]Passage, len(hits))
	for i, e := range hits {
		out[i] = Passage{Source: e.source, Text: e.text, Score: scores[e]}
	}
	return out
}

// ---- passage splitting ----

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

// ---- tokenisation ----

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
