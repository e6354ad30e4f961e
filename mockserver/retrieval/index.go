package retrieval

import (
	"math"
	"slices"
	"sync"
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
