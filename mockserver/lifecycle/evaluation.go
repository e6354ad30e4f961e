package lifecycle

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Evaluation states, spelled as the interface document lists them (§2.8,
// §3.1); they are also the only values the list filter accepts.
const (
	EvalPending   State = "pending"   // initial value after creation
	EvalRunning   State = "running"   // a run is executing
	EvalCompleted State = "completed" // last run finished successfully
	EvalFailed    State = "failed"    // last run failed
)

// Evaluation events.
const (
	EvalStart  Event = "start"  // POST .../start or .../run-ragas
	EvalFinish Event = "finish" // the run's duration elapsed and it succeeded
	EvalFail   Event = "fail"   // the run's duration elapsed and it failed
)

// evaluationTable is the whole evaluation machine. The document leaves
// transitions unspecified (§3.1 "Transitions: not shown"); we allow a
// finished evaluation to be started again because the start endpoint exists
// independently of creation and clients re-run benchmarks, while starting a
// running one is refused so two runs never overlap.
var evaluationTable = NewTable("evaluation",
	Transition{EvalPending, EvalStart, EvalRunning},
	Transition{EvalCompleted, EvalStart, EvalRunning},
	Transition{EvalFailed, EvalStart, EvalRunning},
	Transition{EvalRunning, EvalFinish, EvalCompleted},
	Transition{EvalRunning, EvalFail, EvalFailed},
)

// EvaluationTable returns the evaluation machine's transition table.
func EvaluationTable() *Table { return evaluationTable }

// EvaluationStates returns the four evaluation states in document order,
// e.g. for validating the list endpoint's status filter.
func EvaluationStates() []State {
	return []State{EvalPending, EvalRunning, EvalCompleted, EvalFailed}
}

// IsEvaluationState reports whether s is one of the four evaluation states.
func IsEvaluationState(s State) bool { return slices.Contains(EvaluationStates(), s) }

// CanDelete reports whether an evaluation in state s may be deleted. Only a
// running evaluation is protected (§3.1 rule 1, §8.3); deletion is not an
// event in the table because it ends the resource rather than moving it to
// another state.
func CanDelete(s State) bool { return s != EvalRunning }

// ErrUnknownState is wrapped by errors for a state that is not part of the
// machine, which means stored data is corrupt rather than a client mistake.
var ErrUnknownState = errors.New("lifecycle: unknown state")

// EvalRun describes one started run. The mock stores it when the start event
// is fired and derives the evaluation's state from it on every read.
type EvalRun struct {
	StartedAt time.Time     // clock time the start event was fired
	Duration  time.Duration // how long the run takes; <= 0 means it ends at StartedAt
	WillFail  bool          // decided at start, e.g. true when the model has no data
}

// EndsAt returns the time the run finishes.
func (r EvalRun) EndsAt() time.Time { return r.StartedAt.Add(max(r.Duration, 0)) }

// AdvanceEvaluation returns the state an evaluation in cur reaches at now.
// A running evaluation whose run has ended (now >= StartedAt+Duration) fires
// finish, or fail when run.WillFail; every other state is returned as is,
// since nothing but a client request moves it. It goes through the table
// rather than assigning states so the lazy path can never produce a move
// the table forbids.
func AdvanceEvaluation(cur State, run EvalRun, now time.Time) (State, error) {
	if !IsEvaluationState(cur) {
		return cur, fmt.Errorf("%w: evaluation %q", ErrUnknownState, cur)
	}
	if cur != EvalRunning || now.Before(run.EndsAt()) {
		return cur, nil
	}
	ev := EvalFinish
	if run.WillFail {
		ev = EvalFail
	}
	return evaluationTable.Fire(cur, ev)
}
