package retrieval

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// checkTokens fails unless the tokens join to the text and respect the
// budget.
func checkTokens(t *testing.T, a Answer, maxTokens int) {
	t.Helper()
	if joined := strings.Join(a.Tokens, ""); joined != a.Text {
		t.Errorf("Join(Tokens) = %q, want Text %q", joined, a.Text)
	}
	if len(a.Tokens) > maxTokens {
		t.Errorf("got %d tokens, want <= %d", len(a.Tokens), maxTokens)
	}
	if a.Text != strings.TrimSpace(a.Text) || a.Text == "" {
		t.Errorf("Text %q: want non-empty and trimmed", a.Text)
	}
}

// manyPassages returns relevant passages from several files, enough for
// every length preference to fill its sentence budget.
func manyPassages() []Passage {
	var ps []Passage
	for i := range 6 {
		ps = append(ps, Passage{
			Source: fmt.Sprintf("policy%d.md", i),
			Text:   fmt.Sprintf("Warranty rule %d applies to laptops. It covers the battery for %d months. Claims go to desk %d.", i, 12+i, i),
			Score:  float64(10 - i),
		})
	}
	return ps
}

func TestComposeGroundedStatesTheFact(t *testing.T) {
	ix := handbookIndex(t)
	query := "How long is the warranty period?"
	a := Compose(query, ix.Search(query, 5), Options{Words: testWords})
	checkTokens(t, a, DefaultMaxTokens)
	if !a.Grounded {
		t.Errorf("Grounded: got false, want true")
	}
	if want := "According to handbook.md, the warranty period is 24 months."; !strings.HasPrefix(a.Text, want) {
		t.Errorf("Text: got %q, want prefix %q", a.Text, want)
	}
	if len(a.Sources) == 0 || a.Sources[0] != "handbook.md" {
		t.Errorf("Sources: got %q, want handbook.md first", a.Sources)
	}
}

func TestComposeQuotesCSVRecord(t *testing.T) {
	doc, err := extractString(t, "prices.csv", "item,price\nWidget,12.50\nGadget,30\n", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex()
	ix.Add(doc.Name, doc.Text)
	a := Compose("What is the price of the Gadget?", ix.Search("What is the price of the Gadget?", 3), Options{Words: testWords, Length: LengthConcise})
	if want := "According to prices.csv, item: Gadget; price: 30."; a.Text != want {
		t.Errorf("Text: got %q, want %q (the matching record only)", a.Text, want)
	}
}

func TestComposeMaxTokens(t *testing.T) {
	tests := []struct {
		name      string
		maxTokens int
		base      bool
		wantLen   int // -1: only the upper bound is checked
	}{
		{"one token", 1, false, 1},
		{"five tokens", 5, false, 5},
		{"generated, three tokens", 3, true, 3},
		{"large budget", 10000, false, -1},
		{"default", 0, true, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Compose("warranty battery laptops", manyPassages(), Options{Words: testWords, MaxTokens: tt.maxTokens, BaseModel: tt.base, Length: LengthDetailed})
			budget := tt.maxTokens
			if budget <= 0 {
				budget = DefaultMaxTokens
			}
			checkTokens(t, a, budget)
			if tt.wantLen >= 0 && len(a.Tokens) != tt.wantLen {
				t.Errorf("got %d tokens %q, want %d", len(a.Tokens), a.Tokens, tt.wantLen)
			}
		})
	}
	t.Run("sources only for text that survives the cut", func(t *testing.T) {
		a := Compose("warranty battery laptops", manyPassages(), Options{Words: testWords, MaxTokens: 6, Length: LengthDetailed})
		if !slices.Equal(a.Sources, []string{"policy0.md"}) {
			t.Errorf("Sources: got %q, want [policy0.md]", a.Sources)
		}
	})
}

func TestComposeLength(t *testing.T) {
	for _, base := range []bool{false, true} {
		t.Run(fmt.Sprintf("base=%v", base), func(t *testing.T) {
			count := map[string]int{}
			for _, l := range []string{LengthConcise, LengthBalanced, LengthDetailed, "", "unknown"} {
				a := Compose("warranty battery laptops", manyPassages(), Options{Words: testWords, Length: l, BaseModel: base, MaxTokens: 10000, Seed: 3})
				checkTokens(t, a, 10000)
				count[l] = len(a.Tokens)
			}
			if !(count[LengthConcise] < count[LengthBalanced] && count[LengthBalanced] < count[LengthDetailed]) {
				t.Errorf("token counts concise %d, balanced %d, detailed %d: want strictly increasing",
					count[LengthConcise], count[LengthBalanced], count[LengthDetailed])
			}
			if count[""] != count[LengthBalanced] || count["unknown"] != count[LengthBalanced] {
				t.Errorf("default length: got %d and %d tokens, want balanced %d", count[""], count["unknown"], count[LengthBalanced])
			}
		})
	}
	t.Run("sentence counts", func(t *testing.T) {
		tests := []struct {
			length string
			want   int
		}{{LengthConcise, 2}, {LengthBalanced, 4}, {LengthDetailed, 8}}
		for _, tt := range tests {
			for _, base := range []bool{false, true} {
				a := Compose("warranty battery laptops", manyPassages(), Options{Words: testWords, Length: tt.length, MaxTokens: 10000, BaseModel: base})
				if got := len(splitSentences(a.Text)); got != tt.want {
					t.Errorf("%s (base model %v): got %d sentences in %q, want %d", tt.length, base, got, a.Text, tt.want)
				}
			}
		}
	})
}

func TestComposeBaseModelIgnoresPassages(t *testing.T) {
	ps := manyPassages()
	a := Compose("Tell me about warranty for laptops", ps, Options{Words: testWords, BaseModel: true, Seed: 42})
	checkTokens(t, a, DefaultMaxTokens)
	if a.Grounded || a.Sources != nil {
		t.Errorf("Grounded %v, Sources %q: want false and nil", a.Grounded, a.Sources)
	}
	for _, p := range ps {
		if strings.Contains(a.Text, p.Source) || strings.Contains(a.Text, "battery for") {
			t.Errorf("base-model answer %q quotes passage %v", a.Text, p)
		}
	}
	mustContain(t, a.Text, "warranty", "laptops")
	if strings.Contains(a.Text, "uploaded files") {
		t.Errorf("base-model answer %q mentions uploaded files", a.Text)
	}
}

func TestComposeWithoutRelevantPassages(t *testing.T) {
	tests := []struct {
		name     string
		passages []Passage
	}{
		{"no passages", nil},
		{"unrelated passages", []Passage{{Source: "cats.txt", Text: "Cats sleep sixteen hours a day.", Score: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Compose("What is the refund policy?", tt.passages, Options{Words: testWords, ModelName: "acme-7b"})
			checkTokens(t, a, DefaultMaxTokens)
			if a.Grounded || len(a.Sources) != 0 {
				t.Errorf("Grounded %v, Sources %q: want false and none", a.Grounded, a.Sources)
			}
			mustContain(t, a.Text, "refund and policy", "acme-7b")
		})
	}
}

func TestComposeDeterministic(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		ps   []Passage
	}{
		{"generated", Options{Words: testWords, BaseModel: true, Seed: 7}, nil},
		{"generated, zero seed", Options{Words: testWords, BaseModel: true}, nil},
		{"grounded", Options{Words: testWords, Seed: 7}, manyPassages()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Compose("warranty for laptops", tt.ps, tt.opt)
			b := Compose("warranty for laptops", tt.ps, tt.opt)
			if a.Text != b.Text || !slices.Equal(a.Tokens, b.Tokens) {
				t.Errorf("same seed and query gave different answers:\n%q\n%q", a.Text, b.Text)
			}
		})
	}
	t.Run("seed and query change generated text", func(t *testing.T) {
		base := Compose("warranty for laptops", nil, Options{Words: testWords, BaseModel: true, Seed: 1}).Text
		if other := Compose("warranty for laptops", nil, Options{Words: testWords, BaseModel: true, Seed: 2}).Text; other == base {
			t.Errorf("different seeds gave the same answer %q", base)
		}
		if other := Compose("returns for phones", nil, Options{Words: testWords, BaseModel: true, Seed: 1}).Text; other == base {
			t.Errorf("different queries gave the same answer %q", base)
		}
	})
}

func TestComposeGeneratedHandlesOddQueries(t *testing.T) {
	for _, q := range []string{"", "?!", "the of is", "100% %s %d", strings.Repeat("long ", 500)} {
		t.Run(q[:min(len(q), 20)], func(t *testing.T) {
			a := Compose(q, nil, Options{Words: testWords, BaseModel: true})
			checkTokens(t, a, DefaultMaxTokens)
			if strings.Contains(a.Text, "%!") {
				t.Errorf("formatting verb leaked into %q", a.Text)
			}
		})
	}
}

func TestStreamTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, world!  Bye", []string{"Hello, ", "world!  ", "Bye"}},
		{"  lead", []string{"  lead"}},
		{"trail \n", []string{"trail \n"}},
		{"one", []string{"one"}},
		{"", nil},
		{"handbook.md, the 24 months.", []string{"handbook.md, ", "the ", "24 ", "months."}},
	}
	for _, tt := range tests {
		got := streamTokens(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("streamTokens(%q): got %q, want %q", tt.in, got, tt.want)
		}
		if strings.Join(got, "") != tt.in {
			t.Errorf("streamTokens(%q) does not join back", tt.in)
		}
	}
}

func TestSentenceHelpers(t *testing.T) {
	tests := []struct {
		fn       func(string) string
		name     string
		in, want string
	}{
		{lowerFirst, "lowerFirst", "The warranty is 24 months.", "the warranty is 24 months."},
		{lowerFirst, "lowerFirst", "Acme ships fast.", "Acme ships fast."},
		{lowerFirst, "lowerFirst", "THE END", "THE END"},
		{lowerFirst, "lowerFirst", "item: Widget", "item: Widget"},
		{withPeriod, "withPeriod", "item: Widget; price: 3", "item: Widget; price: 3."},
		{withPeriod, "withPeriod", "Done!", "Done!"},
		{withPeriod, "withPeriod", "trailing,", "trailing."},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.in); got != tt.want {
			t.Errorf("%s(%q): got %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}
