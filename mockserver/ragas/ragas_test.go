package ragas

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

var paris = Sample{
	Question: "What is the capital of France?",
	Answer:   "Paris is the capital of France. It lies on the Seine.",
	Contexts: []string{
		"Paris is the capital of France. It lies on the Seine river.",
		"Berlin is the capital of Germany.",
	},
	GroundTruth: "The capital of France is Paris.",
}

func TestCopiedAnswerIsFaithful(t *testing.T) {
	ctx := "The Eiffel Tower was completed in 1889. It is 330 metres tall!"
	s := Score(Sample{Question: "When was the Eiffel Tower completed?", Answer: ctx, Contexts: []string{ctx}})
	if s.Faithfulness != 1 {
		t.Errorf("faithfulness = %v, want 1", s.Faithfulness)
	}
}

func TestUnrelatedAnswerScoresZero(t *testing.T) {
	s := Score(Sample{
		Question:    "What is the capital of France?",
		Answer:      "Bananas grow quickly in tropical climates.",
		Contexts:    []string{"Paris is the capital of France."},
		GroundTruth: "Paris",
	})
	if s.Faithfulness > 0.01 || s.AnswerRelevancy > 0.01 {
		t.Errorf("unrelated answer scored %+v, want faithfulness and relevancy ~0", s)
	}
	// The context itself is fine, so retrieval metrics stay high.
	if s.ContextPrecision != 1 || s.ContextRecall != 1 {
		t.Errorf("context metrics = %+v, want 1", s)
	}
}

func TestKnownValues(t *testing.T) {
	got := Score(paris)
	// question {capital, france}; answer {paris, capital, france, lies, seine}
	// cosine = 2 / sqrt(2*5) = 0.6325. Context 1 relevant, context 2 shares
	// "capital" with the ground truth so is relevant too: AP = (1/1+2/2)/2.
	want := Scores{Faithfulness: 1, AnswerRelevancy: 0.6325, ContextPrecision: 1, ContextRecall: 1}
	if got != want {
		t.Errorf("Score(paris) = %+v, want %+v", got, want)
	}
}

func TestContextPrecisionRanking(t *testing.T) {
	relevant, noise := "Paris is the capital of France.", "Bananas are yellow."
	cases := []struct {
		ctx  []string
		want float64
	}{
		{[]string{relevant, noise}, 1},
		{[]string{noise, relevant}, 0.5},              // precision@2 = 1/2
		{[]string{noise, relevant, relevant}, 0.5833}, // (1/2 + 2/3) / 2
		{[]string{noise, noise}, 0},
		{nil, 0},
	}
	for _, c := range cases {
		s := Score(Sample{Question: "capital?", Contexts: c.ctx, GroundTruth: "Paris is the capital of France."})
		if s.ContextPrecision != c.want {
			t.Errorf("contexts %q: precision %v, want %v", c.ctx, s.ContextPrecision, c.want)
		}
	}
	// Without ground truth the question is the reference.
	s := Score(Sample{Question: "Which city is the capital of France?", Contexts: []string{noise, relevant}})
	if s.ContextPrecision != 0.5 {
		t.Errorf("question as reference: precision %v, want 0.5", s.ContextPrecision)
	}
}

func TestFaithfulnessPartial(t *testing.T) {
	s := Score(Sample{
		Answer:   "Paris is the capital of France. Bananas grow on tropical plantations.",
		Contexts: []string{"Paris is the capital of France."},
	})
	if s.Faithfulness != 0.5 {
		t.Errorf("faithfulness = %v, want 0.5 (one of two sentences supported)", s.Faithfulness)
	}
}

func TestContextRecall(t *testing.T) {
	base := Sample{Contexts: []string{"Paris is the capital of France."}}
	cases := []struct {
		gt   string
		want float64
	}{
		{"Paris is the capital of France. It has 2.1 million inhabitants.", 0.5},
		{"The capital of France is Paris.", 1},
		{"Tokyo hosts many museums.", 0},
		{"", 1},         // no ground truth: nothing to recall
		{"The. It.", 1}, // only stop words counts as no ground truth
	}
	for _, c := range cases {
		s := base
		s.GroundTruth = c.gt
		if got := Score(s).ContextRecall; got != c.want {
			t.Errorf("ground truth %q: recall %v, want %v", c.gt, got, c.want)
		}
	}
	// No ground truth and nothing retrieved: 0, not a vacuous 1.
	if got := Score(Sample{Question: "q", Answer: "a"}).ContextRecall; got != 0 {
		t.Errorf("no ground truth, no contexts: recall %v, want 0", got)
	}
}

func TestEmptyInputsScoreZero(t *testing.T) {
	for _, s := range []Sample{
		{},
		{Contexts: []string{}},
		{Contexts: []string{"", "   ", "..."}},
		{Question: "   ", Answer: "?!.", GroundTruth: "\n\n"},
		{Question: "the of and", Answer: "it is"},
	} {
		if got := Score(s); got != (Scores{}) {
			t.Errorf("Score(%+v) = %+v, want all 0", s, got)
		}
	}
}

func TestDeterministic(t *testing.T) {
	s := Sample{
		Question:    "How do plants make food from sunlight and water?",
		Answer:      "Plants use photosynthesis. Chlorophyll absorbs light; water and carbon dioxide become glucose and oxygen.",
		Contexts:    []string{"Photosynthesis converts light energy.", "Chlorophyll absorbs red and blue light.", "Glucose stores energy."},
		GroundTruth: "Plants make glucose by photosynthesis using light, water and carbon dioxide.",
	}
	first := Score(s)
	for range 200 {
		if got := Score(s); got != first {
			t.Fatalf("Score changed between calls: %+v vs %+v", first, got)
		}
	}
}

func TestRangeAndRounding(t *testing.T) {
	samples := []Sample{
		paris,
		{Question: "a b c d e f g", Answer: "g f e d c b a a a a x y z", Contexts: []string{"x", "q", "a b"}, GroundTruth: "z y. q r s. t u v w."},
		{Question: "Ünïcödé wörds 42?", Answer: "ÜNÏCÖDÉ WÖRDS: 42. Ja!", Contexts: []string{"ünïcödé"}, GroundTruth: "wörds"},
		{Question: strings.Repeat("word ", 1000), Answer: strings.Repeat("word other ", 1000), Contexts: []string{strings.Repeat("other ", 10)}},
	}
	for _, s := range samples {
		sc := Score(s)
		for name, v := range map[string]float64{
			"faithfulness": sc.Faithfulness, "answer_relevancy": sc.AnswerRelevancy,
			"context_precision": sc.ContextPrecision, "context_recall": sc.ContextRecall,
		} {
			if v < 0 || v > 1 || math.IsNaN(v) {
				t.Errorf("%s = %v out of [0,1] for %q", name, v, s.Question)
			}
			if r := math.Round(v*1e4) / 1e4; r != v {
				t.Errorf("%s = %v not rounded to 4 decimals", name, v)
			}
		}
	}
}

func TestTokenisation(t *testing.T) {
	got := contentTokens("The CAT's 3 hats, don't-they? Über!")
	want := []string{"cat", "3", "hats", "don", "über"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("contentTokens = %q, want %q", got, want)
	}
	sents := sentences("Pi is 3.14. Really? Yes!\nNew line no stop")
	wantS := []string{"Pi is 3.14.", "Really?", "Yes!", "New line no stop"}
	if !reflect.DeepEqual(sents, wantS) {
		t.Errorf("sentences = %q, want %q", sents, wantS)
	}
}

func TestMean(t *testing.T) {
	if got := Mean(nil); got != (Scores{}) {
		t.Errorf("Mean(nil) = %+v, want zero", got)
	}
	got := Mean([]Scores{
		{Faithfulness: 1, AnswerRelevancy: 0.5, ContextPrecision: 0, ContextRecall: 1},
		{Faithfulness: 0, AnswerRelevancy: 0.25, ContextPrecision: 1, ContextRecall: 1},
		{Faithfulness: 0, AnswerRelevancy: 0, ContextPrecision: 0, ContextRecall: 0},
	})
	want := Scores{Faithfulness: 0.3333, AnswerRelevancy: 0.25, ContextPrecision: 0.3333, ContextRecall: 0.6667}
	if got != want {
		t.Errorf("Mean = %+v, want %+v", got, want)
	}
}

func TestJSONNames(t *testing.T) {
	b, err := json.Marshal(Scores{Faithfulness: 1, AnswerRelevancy: 0.5, ContextPrecision: 0.25, ContextRecall: 0})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"faithfulness":1,"answer_relevancy":0.5,"context_precision":0.25,"context_recall":0}`; string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
	var s Sample
	if err := json.Unmarshal([]byte(`{"question":"q","answer":"a","contexts":["c"],"ground_truth":"g"}`), &s); err != nil {
		t.Fatal(err)
	}
	if want := (Sample{Question: "q", Answer: "a", Contexts: []string{"c"}, GroundTruth: "g"}); !reflect.DeepEqual(s, want) {
		t.Errorf("Sample = %+v", s)
	}
}

func TestFaithfulnessRefusesAChangedFigure(t *testing.T) {
	ctx := []string{"The standard warranty period is 24 months from the date of delivery."}
	good := Score(Sample{Question: "How long is the warranty?", Answer: "The standard warranty period is 24 months.", Contexts: ctx})
	bad := Score(Sample{Question: "How long is the warranty?", Answer: "The standard warranty period is 36 months.", Contexts: ctx})
	if good.Faithfulness != 1 || bad.Faithfulness != 0 {
		t.Errorf("faithfulness: got %v (true figure) and %v (changed figure), want 1 and 0", good.Faithfulness, bad.Faithfulness)
	}
}
