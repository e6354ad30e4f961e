package retrieval

import (
	"contractkit/internal/fakeseed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// terms returns the indexable terms of s.
func terms(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	forEachTerm(s, func(term string) { out = append(out, term) })
	return out
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"What is the warranty period?", []string{"warranty", "period"}},
		{"Shipping, shipped, ships", []string{"ship", "ship", "ship"}},
		{"Policies and classes", []string{"policy", "class"}},
		{"Covered status bus", []string{"cover", "status", "bus"}},
		{"It's 24 months (2 years)", []string{"24", "month", "2", "year"}},
		{"ÉCOLE Straße café", []string{"école", "straße", "café"}},
		{"a I x 7", []string{"7"}},
		{"the of and is", nil},
		{"item: Widget; price: 12.50", []string{"item", "widget", "price", "12", "50"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := terms(t, tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("terms(%q): got %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitPassages(t *testing.T) {
	long := strings.Repeat("word ", 200) // 1000 bytes, no sentence end
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"three sentences per passage", "One ant. Two bees. Three cats. Four dogs. Five eels.",
			[]string{"One ant. Two bees. Three cats.", "Four dogs. Five eels."}},
		{"blank line ends a passage", "First para.\n\nSecond para.",
			[]string{"First para.", "Second para."}},
		{"abbreviations and decimals", "Use e.g. Acme tools. Dr. Smith paid 12.50 dollars. J. Doe agreed.",
			[]string{"Use e.g. Acme tools. Dr. Smith paid 12.50 dollars. J. Doe agreed."}},
		{"hard-wrapped prose joins", "The warranty period\nis 24 months.\nReturns take 30 days.",
			[]string{"The warranty period is 24 months.\nReturns take 30 days."}},
		{"records stay one per line", "item: a; price: 1\nitem: b; price: 2\nitem: c; price: 3\nitem: d; price: 4",
			[]string{"item: a; price: 1\nitem: b; price: 2\nitem: c; price: 3", "item: d; price: 4"}},
		{"quotes close a sentence", `He said "Stop." Then left.`, []string{`He said "Stop." Then left.`}},
		{"lower-case after period does not split", "Version 2. and more.", []string{"Version 2. and more."}},
		{"empty", " \n\n ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitPassages(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("splitPassages(%q):\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
	t.Run("long sentence is chopped at spaces", func(t *testing.T) {
		got := splitPassages(long)
		if len(got) < 3 {
			t.Fatalf("got %d passages, want >= 3", len(got))
		}
		for _, p := range got {
			if len(p) > MaxPassageChars || strings.HasPrefix(p, " ") || strings.HasSuffix(p, " ") {
				t.Errorf("passage of %d bytes %q, want <= %d and trimmed", len(p), p[:20], MaxPassageChars)
			}
		}
	})
	t.Run("sentence count", func(t *testing.T) {
		got := splitSentences("It works! Does it? Yes. (Really.) Done")
		want := []string{"It works!", "Does it?", "Yes.", "(Really.)", "Done"}
		if !slices.Equal(got, want) {
			t.Errorf("splitSentences: got %q, want %q", got, want)
		}
	})
}

// handbookIndex builds an index with one fact among distractors.
func handbookIndex(t testing.TB) *Index {
	t.Helper()
	ix := NewIndex()
	ix.Add("handbook.md", "Welcome to Acme. Our offices open at 9am.\n\n"+
		"The warranty period is 24 months. Warranty claims need a receipt.\n\n"+
		"The holiday period starts in December.")
	ix.Add("faq.txt", "Shipping takes 3 days. Returns are accepted for 30 days.\n\nThe period of a pendulum depends on its length.")
	ix.Add("prices.csv", "item: Widget; price: 12.50\nitem: Gadget; price: 30")
	return ix
}

func TestSearchRanking(t *testing.T) {
	ix := handbookIndex(t)
	tests := []struct {
		query     string
		wantTop   string // substring of the first passage
		wantCount int    // -1: don't check
	}{
		{"How long is the warranty period?", "warranty period is 24 months", -1},
		{"warranty", "warranty period is 24 months", 1},
		{"What does a Widget cost?", "item: Widget", 1},
		{"shipped", "Shipping takes 3 days", 1},
		{"the of and is what", "", 0},
		{"zebra", "", 0},
		{"", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := ix.Search(tt.query, 10)
			if tt.wantCount >= 0 && len(got) != tt.wantCount {
				t.Fatalf("Search(%q): got %d results %v, want %d", tt.query, len(got), got, tt.wantCount)
			}
			if tt.wantTop == "" {
				return
			}
			if len(got) == 0 || !strings.Contains(got[0].Text, tt.wantTop) {
				t.Fatalf("Search(%q): got %v, want first passage containing %q", tt.query, got, tt.wantTop)
			}
			for i, p := range got {
				if p.Score <= 0 {
					t.Errorf("result %d score %v, want > 0", i, p.Score)
				}
				if i > 0 && p.Score > got[i-1].Score {
					t.Errorf("result %d score %v above previous %v: not best first", i, p.Score, got[i-1].Score)
				}
			}
		})
	}
}

func TestSearchStopWordsDoNotChangeScores(t *testing.T) {
	ix := handbookIndex(t)
	plain := ix.Search("warranty period", 5)
	wordy := ix.Search("what is the warranty period of it?", 5)
	if !slices.Equal(plain, wordy) {
		t.Errorf("stop words changed results:\n got %v\nwant %v", wordy, plain)
	}
}

func TestSearchK(t *testing.T) {
	ix := handbookIndex(t)
	tests := []struct{ k, want int }{{-1, 0}, {0, 0}, {1, 1}, {2, 2}, {100, 3}}
	for _, tt := range tests {
		if got := ix.Search("period", tt.k); len(got) != tt.want {
			t.Errorf("Search(k=%d): got %d results, want %d", tt.k, len(got), tt.want)
		}
	}
}

func TestSearchTiesKeepInsertionOrder(t *testing.T) {
	ix := NewIndex()
	for i := range 5 {
		ix.Add(fmt.Sprintf("s%d", i), "identical passage about llamas")
	}
	got := ix.Search("llamas", 5)
	for i, p := range got {
		if want := fmt.Sprintf("s%d", i); p.Source != want {
			t.Errorf("result %d: got source %q, want %q", i, p.Source, want)
		}
	}
}

func TestRemove(t *testing.T) {
	ix := handbookIndex(t)
	before := ix.Len()
	ix.Remove("handbook.md")
	if got, want := ix.Len(), before-3; got != want {
		t.Errorf("Len after Remove: got %d, want %d", got, want)
	}
	for _, p := range ix.Search("warranty period holiday", 10) {
		if p.Source == "handbook.md" {
			t.Errorf("removed source still returned: %v", p)
		}
	}
	if got := ix.Search("warranty", 10); len(got) != 0 {
		t.Errorf("Search(warranty) after Remove: got %v, want none", got)
	}
	ix.mu.RLock()
	_, stale := ix.postings["warranty"]
	ix.mu.RUnlock()
	if stale {
		t.Error("postings for a term only the removed source had are still present")
	}
	ix.Remove("no-such-source")
	if got, want := ix.Len(), before-3; got != want {
		t.Errorf("Len after removing an unknown source: got %d, want %d", got, want)
	}
	ix.Add("handbook.md", "The warranty period is 36 months now.")
	if got := ix.Search("warranty", 1); len(got) != 1 || !strings.Contains(got[0].Text, "36 months") {
		t.Errorf("re-added source: got %v, want the new text", got)
	}
}

func TestAddSkipsEmptyAndBoundsPassages(t *testing.T) {
	ix := NewIndex()
	ix.Add("empty", "   \n\n the of and ... \n")
	if got := ix.Len(); got != 0 {
		t.Errorf("Len after adding only stop words: got %d, want 0", got)
	}
	var sb strings.Builder
	for i := range MaxPassages + 10 {
		fmt.Fprintf(&sb, "fact number %d\n\n", i)
	}
	ix.Add("big", sb.String())
	if got := ix.Len(); got != MaxPassages {
		t.Errorf("Len after adding too much: got %d, want %d", got, MaxPassages)
	}
	ix.Add("more", "another fact")
	if got := ix.Len(); got != MaxPassages {
		t.Errorf("Len once full: got %d, want %d", got, MaxPassages)
	}
	ix.Remove("big")
	if got := ix.Len(); got != 0 {
		t.Errorf("Len after Remove: got %d, want 0", got)
	}
}

// TestIndexConcurrent exercises Add, Remove, Search and Len from many
// goroutines; run with -race to check the locking.
func TestIndexConcurrent(t *testing.T) {
	ix := handbookIndex(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				src := fmt.Sprintf("w%d-%d.txt", w, i)
				ix.Add(src, fmt.Sprintf("Worker %d wrote note %d about warranty terms.", w, i))
				if i%2 == 0 {
					ix.Remove(src)
				}
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for range 200 {
				got := ix.Search("warranty period", 3)
				if len(got) == 0 {
					t.Error("Search returned nothing while the handbook is indexed")
					return
				}
				_ = ix.Len()
			}
		})
	}
	wg.Wait()
	if got, want := ix.Len(), 6+4*25; got != want {
		t.Errorf("Len: got %d, want %d", got, want)
	}
	if top := ix.Search("How long is the warranty period?", 1); len(top) != 1 || top[0].Source != "handbook.md" {
		t.Errorf("top result after concurrent updates: got %v, want handbook.md", top)
	}
}

func BenchmarkSearch(b *testing.B) {
	f := fakeseed.Faker(7)
	ix := NewIndex()
	for i := range 700 { // ~2k passages of three sentences
		var sb strings.Builder
		for range 9 {
			sb.WriteString(f.Sentence())
			sb.WriteByte(' ')
		}
		ix.Add(fmt.Sprintf("doc%d.txt", i), sb.String())
	}
	ix.Add("handbook.md", "The warranty period is 24 months.")
	b.Logf("passages: %d", ix.Len())
	b.ReportAllocs()
	for b.Loop() {
		if got := ix.Search("How long is the warranty period for a laptop?", 5); len(got) == 0 {
			b.Fatal("no results")
		}
	}
}
