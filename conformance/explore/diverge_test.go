package explore

import (
	"testing"
	"time"

	"contractkit/exchange"
)

// The divergence rule decides whether a break the replay did not show
// again is reported as unconfirmed (it never fails a run) or as a failure
// (the replay could not test it). These tests pin the rule itself; the
// mutant stored-evaluation-description-update-lost proves it end to end.

func TestDivergentComparesClassesAndIgnoresRateLimitsAndNoAnswer(t *testing.T) {
	for _, c := range []struct {
		original, replayed int
		want               bool
	}{
		{201, 201, false},
		{201, 200, false}, // same class
		{404, 400, false},
		{201, 409, true}, // the unique name the first run took
		{409, 201, true},
		{200, 500, true},
		{201, 429, false}, // the rate limit says nothing of the state
		{429, 201, false},
		{201, 0, false}, // no answer: the network, not the server's state
		{0, 404, false},
	} {
		if got := divergent(c.original, c.replayed); got != c.want {
			t.Errorf("divergent(%d, %d) = %v, want %v", c.original, c.replayed, got, c.want)
		}
	}
}

// replaying is a case replaying orig, with one step open for op.
func replaying(orig []step, op string) *exploreCase {
	c := &exploreCase{x: &explorer{shrinking: true}, replays: orig}
	c.steps = append(c.steps, step{op: op})
	return c
}

func answers(op string, statuses ...int) step {
	s := step{op: op}
	for _, st := range statuses {
		s.xs = append(s.xs, &exchange.Exchange{Status: st})
	}
	return s
}

func TestRecordMarksAReplayThatLeftTheOriginalsPath(t *testing.T) {
	orig := []step{answers("createEvaluation", 201), answers("listModels", 200, 200)}
	for _, c := range []struct {
		name     string
		op       string
		at       int // the step the replay is at
		statuses []int
		want     bool
	}{
		{"the same operation and class", "createEvaluation", 0, []int{201}, false},
		{"another class at the same step", "createEvaluation", 0, []int{409}, true},
		{"a rate limit at the same step", "createEvaluation", 0, []int{429}, false},
		{"another operation at the step", "deleteEvaluation", 0, []int{204}, true},
		{"more pages than the original read", "listModels", 1, []int{200, 200, 500}, false},
		{"a later page of another class", "listModels", 1, []int{200, 500}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cs *exploreCase
			if c.at == 0 {
				cs = replaying(orig, c.op)
			} else {
				cs = replaying(orig, orig[0].op)
				cs.record(&exchange.Exchange{Status: orig[0].xs[0].Status})
				cs.steps = append(cs.steps, step{op: c.op})
			}
			for _, st := range c.statuses {
				cs.record(&exchange.Exchange{Status: st})
			}
			if cs.x.diverged != c.want {
				t.Errorf("diverged = %v, want %v", cs.x.diverged, c.want)
			}
		})
	}
	// Beyond the original's last step there is nothing to compare.
	cs := replaying(orig[:1], "createEvaluation")
	cs.record(&exchange.Exchange{Status: 201})
	cs.steps = append(cs.steps, step{op: "deleteModel"})
	cs.record(&exchange.Exchange{Status: 500})
	if cs.x.diverged {
		t.Error("a step past the original's last one diverged")
	}
}

func TestAnUnreproducedBreakIsUnconfirmedOnlyWhenTheReplayKeptThePath(t *testing.T) {
	for _, c := range []struct {
		name                 string
		reproduced, diverged bool
		wantFailure          bool
	}{
		{"reproduced", true, false, true},
		{"not reproduced on the same path", false, false, false},
		{"not reproduced, the replay left the path", false, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := &explorer{outcomes: map[string]*outcome{}}
			f := &failure{
				finding:    finding{prop: PropStored, what: "a value sent is stored", detail: "description was lost", x: &exchange.Exchange{Status: 200}},
				steps:      []step{answers("updateEvaluation", 200)},
				shrunk:     c.reproduced,
				reproduced: c.reproduced,
				diverged:   c.diverged,
			}
			x.outcomes[PropStored] = &outcome{failure: f, decided: map[string][]finding{}}
			o := (&Result{x: x}).Outcome(PropStored)
			if got := o.Failure != nil; got != c.wantFailure {
				t.Errorf("failure = %v, want %v", got, c.wantFailure)
			}
			if got := o.Unconfirmed != nil; got == c.wantFailure {
				t.Errorf("unconfirmed = %v, want %v", got, !c.wantFailure)
			}
		})
	}
}

func TestAReplayAfterThePhasesDeadlineSpendsTheShrinkingAllowance(t *testing.T) {
	past, future := time.Now().Add(-time.Second), time.Now().Add(time.Minute)
	x := &explorer{deadline: past, budget: 10}
	if x.spend() {
		t.Error("a request was spent exploring after the phase's deadline")
	}
	x = &explorer{deadline: past, budget: 10, shrinking: true, shrinkUntil: future}
	if !x.spend() {
		t.Error("a replay after the phase's deadline got no request within its own allowance")
	}
	x = &explorer{deadline: past, budget: 10, shrinking: true, shrinkUntil: past}
	if x.spend() {
		t.Error("a replay past its own allowance was spent a request")
	}
}
