package fakeseed

import "testing"

// TestSameSeedSameValues holds every seed, 0 included, to one sequence of
// values: gofakeit.New(0) alone would draw a new one on each call.
func TestSameSeedSameValues(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, 1 << 16} {
		a, b := Faker(seed), Faker(seed)
		for i := range 5 {
			if x, y := a.Sentence(), b.Sentence(); x != y {
				t.Fatalf("seed %d, value %d: %q then %q", seed, i, x, y)
			}
		}
	}
	if Faker(0).Sentence() == Faker(1).Sentence() {
		t.Errorf("seeds 0 and 1 gave the same first sentence: 0 should stand for a seed of its own")
	}
}
