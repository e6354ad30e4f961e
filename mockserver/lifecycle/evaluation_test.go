package lifecycle

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestEvaluationTableExhaustive(t *testing.T) {
	want := map[State]map[Event]State{
		EvalPending:   {EvalStart: EvalRunning},
		EvalRunning:   {EvalFinish: EvalCompleted, EvalFail: EvalFailed},
		EvalCompleted: {EvalStart: EvalRunning},
		EvalFailed:    {EvalStart: EvalRunning},
	}
	checkExhaustive(t, EvaluationTable(),
		EvaluationStates(),
		[]Event{EvalStart, EvalFinish, EvalFail},
		want)
}

func TestEvaluationRefusalMessage(t *testing.T) {
	_, err := EvaluationTable().Fire(EvalRunning, EvalStart)
	if want := `evaluation: cannot "start" from "running"`; err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestEvaluationStatesMatchTable(t *testing.T) {
	got := statesOf(EvaluationTable())
	for _, s := range EvaluationStates() {
		if !slices.Contains(got, s) {
			t.Errorf("table lacks state %q", s)
		}
		if !IsEvaluationState(s) {
			t.Errorf("IsEvaluationState(%q) = false", s)
		}
	}
	if len(got) != len(EvaluationStates()) {
		t.Errorf("table states %v, want %v", got, EvaluationStates())
	}
	if IsEvaluationState("done") {
		t.Error(`IsEvaluationState("done") = true`)
	}
}

func TestCanDelete(t *testing.T) {
	for s, want := range map[State]bool{
		EvalPending: true, EvalRunning: false, EvalCompleted: true, EvalFailed: true,
	} {
		if got := CanDelete(s); got != want {
			t.Errorf("CanDelete(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestAdvanceEvaluationBoundaries(t *testing.T) {
	const d = 10 * time.Minute
	ok := EvalRun{StartedAt: t0, Duration: d}
	bad := EvalRun{StartedAt: t0, Duration: d, WillFail: true}
	cases := []struct {
		name string
		cur  State
		run  EvalRun
		at   time.Duration // now - StartedAt
		want State
	}{
		{"at start", EvalRunning, ok, 0, EvalRunning},
		{"just before end", EvalRunning, ok, d - time.Nanosecond, EvalRunning},
		{"at end", EvalRunning, ok, d, EvalCompleted},
		{"after end", EvalRunning, ok, d + time.Hour, EvalCompleted},
		{"fail just before end", EvalRunning, bad, d - time.Nanosecond, EvalRunning},
		{"fail at end", EvalRunning, bad, d, EvalFailed},
		{"fail after end", EvalRunning, bad, 3 * d, EvalFailed},
		{"now before start (skew)", EvalRunning, ok, -time.Minute, EvalRunning},
		{"zero duration ends at start", EvalRunning, EvalRun{StartedAt: t0}, 0, EvalCompleted},
		{"negative duration ends at start", EvalRunning, EvalRun{StartedAt: t0, Duration: -time.Hour}, 0, EvalCompleted},
		{"zero duration before start", EvalRunning, EvalRun{StartedAt: t0}, -time.Nanosecond, EvalRunning},
		// Only running evaluations move with time.
		{"pending stays", EvalPending, ok, 10 * d, EvalPending},
		{"completed stays", EvalCompleted, bad, 10 * d, EvalCompleted},
		{"failed stays", EvalFailed, ok, 10 * d, EvalFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := AdvanceEvaluation(c.cur, c.run, t0.Add(c.at))
			if err != nil || got != c.want {
				t.Fatalf("AdvanceEvaluation(%q, +%v) = %q, %v; want %q", c.cur, c.at, got, err, c.want)
			}
		})
	}
}

func TestAdvanceEvaluationUnknownState(t *testing.T) {
	got, err := AdvanceEvaluation("done", EvalRun{StartedAt: t0}, t0)
	if !errors.Is(err, ErrUnknownState) || got != "done" {
		t.Fatalf("AdvanceEvaluation(done) = %q, %v; want ErrUnknownState", got, err)
	}
}

// A whole lifecycle as the mock drives it: fire start on request, derive the
// state on each read from a FakeClock, re-run after completion.
func TestEvaluationLifecycleWithFakeClock(t *testing.T) {
	clk := NewFakeClock(t0)
	tb := EvaluationTable()
	state := EvalPending
	var run EvalRun
	read := func() State {
		t.Helper()
		s, err := AdvanceEvaluation(state, run, clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var err error
	state, err = tb.Fire(state, EvalStart)
	if err != nil {
		t.Fatal(err)
	}
	run = EvalRun{StartedAt: clk.Now(), Duration: 30 * time.Second}
	clk.Advance(29 * time.Second)
	if state = read(); state != EvalRunning {
		t.Fatalf("after 29s: %q, want running", state)
	}
	if CanDelete(state) {
		t.Fatal("running evaluation deletable")
	}
	if _, err := tb.Fire(state, EvalStart); err == nil {
		t.Fatal("second start while running allowed")
	}
	clk.Advance(time.Second)
	if state = read(); state != EvalCompleted {
		t.Fatalf("after 30s: %q, want completed", state)
	}
	// Re-run, this time failing.
	if state, err = tb.Fire(state, EvalStart); err != nil {
		t.Fatal(err)
	}
	run = EvalRun{StartedAt: clk.Now(), Duration: time.Minute, WillFail: true}
	clk.Advance(time.Minute)
	if state = read(); state != EvalFailed {
		t.Fatalf("re-run: %q, want failed", state)
	}
	if !CanDelete(state) {
		t.Fatal("failed evaluation not deletable")
	}
}
