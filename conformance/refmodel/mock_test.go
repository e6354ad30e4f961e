package refmodel_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"contractkit/conformance/refmodel"
	"contractkit/mockserver"
)

// The mock and the model judge each other: two implementations of the
// same semantics, one a server, one an oracle. Seeded sequences run every
// operation against the in-process mock, with both keys, near-miss ids and
// keys, repeats and every operation interleaved with each state of models
// and evaluations; the model must find nothing. A disagreement names the
// operation, the field and both values, with the calls that led to it.
//
// MODEL_SEEDS=1,2,3 runs other seeds; MODEL_STEPS the random steps of each.

func seeds(t *testing.T) []uint64 {
	if s := os.Getenv("MODEL_SEEDS"); s != "" {
		var out []uint64
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			if err != nil {
				t.Fatalf("MODEL_SEEDS: %v", err)
			}
			out = append(out, n)
		}
		return out
	}
	return []uint64{1}
}

func steps() int {
	if n, err := strconv.Atoi(os.Getenv("MODEL_STEPS")); err == nil {
		return n
	}
	return 60
}

// Beside it, a model that does not know when the server's clock moves (as
// the explore phase does not) watches the same exchanges: it makes no firm
// finding; a state that may have moved gives it at most a timing finding,
// to be confirmed by replay.
func TestMockAndModelAgree(t *testing.T) {
	for _, seed := range seeds(t) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			shadow := refmodel.New(refmodel.Config{})
			var firm []string
			timing := 0
			r := run(t, startMock(t, nil), seed, steps(), func(step int, c refmodel.Call, a refmodel.Answer) {
				v := shadow.Observe(c, a)
				for _, f := range v.Findings {
					firm = append(firm, fmt.Sprintf("after call #%d: %s %s", step, f.Operation, f))
				}
				timing += len(v.Timing)
			})
			t.Logf("seed %d: %d calls; the unfrozen model's timing findings: %d", seed, len(r.Steps), timing)
			if len(r.Found) > 0 {
				t.Errorf("the mock and the model disagree (seed %d, %d calls):\n%s", seed, len(r.Steps), r.Explain(r.Found))
			}
			for _, f := range firm {
				t.Errorf("the unfrozen model's firm finding %s", f)
			}
			for _, miss := range r.Misses() {
				t.Error(miss)
			}
			t.Logf("coverage (documented status: answers):\n%s", r.Coverage())
		})
	}
}

// A server that loses one answer in seven (a 500 before anything is done)
// breaks no prediction: a lost answer teaches the model nothing, and what
// the lost call may have written is learned again when it is read.
func TestLostAnswersBreakNothing(t *testing.T) {
	proofs(t)
	for _, seed := range seeds(t) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			srv := startMock(t, nil, func(c *mockserver.Config) { c.ErrorRate = 1.0 / 7 })
			r := run(t, srv, seed+100, 40)
			lost := 0
			for _, got := range r.Cover {
				lost += got[500]
			}
			if lost == 0 {
				t.Fatal("no answer was lost: the test proves nothing")
			}
			if len(r.Found) > 0 {
				t.Errorf("lost answers made the model find (%d calls, %d lost):\n%s", len(r.Steps), lost, r.Explain(r.Found))
			}
		})
	}
}
