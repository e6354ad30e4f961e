package lifecycle

import (
	"fmt"
	"math/bits"
	"time"
)

// Wire values of a model's `status`. The document leaves them open (§2.1
// "not shown"); these are ones real clients' readiness polls recognise
// (REFERENCE.md §2): "ready" counts as ready, "pending" and "training" as in
// progress, "failed" as failed.
const (
	StatusPending  = "pending"
	StatusTraining = "training"
	StatusReady    = "ready"
	StatusFailed   = "failed"
)

// Wire values of a model's `graph_status`, chosen the same way; clients also
// treat graph_status "ready" with graph_build_progress 100 as ready.
const (
	GraphPending  = "pending"
	GraphBuilding = "building"
	GraphReady    = "ready"
	GraphFailed   = "failed"
)

// Training phases: the states of the model machine. A phase determines the
// wire fields together (see phaseFields), which is why the machine tracks
// one phase rather than status and graph_status separately: the two fields
// can never drift into a combination the mock did not intend.
const (
	ModelQueued   State = "queued"   // status pending, graph pending
	ModelTraining State = "training" // status training, graph pending
	ModelBuilding State = "building" // status training, graph building
	ModelReady    State = "ready"    // status ready, graph ready
	ModelFailed   State = "failed"   // status failed, graph failed
)

// Model machine events, fired as training time passes.
const (
	ModelQueueDone  Event = "queue-done"  // left the queue, training starts (10% of D)
	ModelGraphStart Event = "graph-start" // graph build starts (50% of D)
	ModelTrainDone  Event = "train-done"  // training and graph finished (100% of D)
	ModelTrainFail  Event = "train-fail"  // training failed at the end (100% of D)
)

// modelTable is the model-training machine. It is strictly linear with one
// fork at the end, because the mock only ever models a training that runs to
// its full duration and then succeeds or fails.
var modelTable = NewTable("model",
	Transition{ModelQueued, ModelQueueDone, ModelTraining},
	Transition{ModelTraining, ModelGraphStart, ModelBuilding},
	Transition{ModelBuilding, ModelTrainDone, ModelReady},
	Transition{ModelBuilding, ModelTrainFail, ModelFailed},
)

// Training describes one model training. The mock stores it at model
// creation and derives every status field from it on read.
type Training struct {
	CreatedAt time.Time     // model creation time; training starts here
	Duration  time.Duration // D, total training time; <= 0 means ready at once
	WillFail  bool          // end in failed instead of ready
}

// ModelState is the set of model fields that depend on training progress,
// ready to be copied into the Model resource.
type ModelState struct {
	Status      string     // `status`
	GraphStatus string     // `graph_status`
	Progress    int        // `graph_build_progress`, 0..100, never decreasing
	FineTuned   bool       // `fine_tuning_status`, true only once ready
	TrainedAt   *time.Time // `trained_at`, CreatedAt+D once ready, else nil
	Done        bool       // ready or failed: nothing will change any more
}

// TrainingPhase returns the model machine state a training reaches at now.
// It starts from ModelQueued and fires each event whose moment has passed,
// in order, through the table:
//
//	[0, D/10)   queued
//	[D/10, D/2) training  (queue-done)
//	[D/2, D)    building  (graph-start)
//	[D, ∞)      ready     (train-done) or failed (train-fail) when WillFail
//
// A now before CreatedAt (clock skew) counts as elapsed 0. Boundaries use
// integer nanoseconds, so for D below 10ns the early phases collapse.
func TrainingPhase(tr Training, now time.Time) State {
	elapsed, d := trainingElapsed(tr, now)
	end := ModelTrainDone
	if tr.WillFail {
		end = ModelTrainFail
	}
	steps := []struct {
		at time.Duration
		ev Event
	}{
		{d / 10, ModelQueueDone},
		{d / 2, ModelGraphStart},
		{d, end},
	}
	s := ModelQueued
	for _, st := range steps {
		if elapsed < st.at {
			break
		}
		next, err := modelTable.Fire(s, st.ev)
		if err != nil {
			// The walk and the table are both constants of this package, so
			// this is unreachable unless someone edits one without the other.
			panic(fmt.Sprintf("lifecycle: model walk out of sync with table: %v", err))
		}
		s = next
	}
	return s
}

// TrainingState returns the model's status fields at now. It is pure (same
// inputs, same result) and monotonic in now: no field ever moves backwards
// as now increases, so polling clients never observe a regression.
//
// graph_build_progress is 0 until the graph build starts at D/2, then rises
// linearly, capped at 99 while building so that 100 only ever appears
// together with graph_status ready. On failure it freezes at the value it
// had just before D.
func TrainingState(tr Training, now time.Time) ModelState {
	elapsed, d := trainingElapsed(tr, now)
	switch phase := TrainingPhase(tr, now); phase {
	case ModelQueued:
		return ModelState{Status: StatusPending, GraphStatus: GraphPending}
	case ModelTraining:
		return ModelState{Status: StatusTraining, GraphStatus: GraphPending}
	case ModelBuilding:
		return ModelState{Status: StatusTraining, GraphStatus: GraphBuilding, Progress: buildProgress(elapsed, d)}
	case ModelReady:
		at := tr.CreatedAt.Add(d)
		return ModelState{Status: StatusReady, GraphStatus: GraphReady, Progress: 100, FineTuned: true, TrainedAt: &at, Done: true}
	case ModelFailed:
		last := 0
		if d > 0 {
			last = buildProgress(d-1, d)
		}
		return ModelState{Status: StatusFailed, GraphStatus: GraphFailed, Progress: last, Done: true}
	default:
		panic(fmt.Sprintf("lifecycle: unhandled model phase %q", phase))
	}
}

// trainingElapsed returns the time since creation (clamped at 0) and the
// effective duration (clamped at 0).
func trainingElapsed(tr Training, now time.Time) (elapsed, d time.Duration) {
	return max(now.Sub(tr.CreatedAt), 0), max(tr.Duration, 0)
}

// buildProgress is floor(100 * (elapsed-D/2) / (D-D/2)), clamped to [0, 99].
// It uses a 128-bit intermediate product so it stays exact (and therefore
// monotonic) for any duration, where int64 would overflow beyond ~2.9 years
// and float64 would round.
func buildProgress(elapsed, d time.Duration) int {
	start := d / 2
	if elapsed < start || d <= 0 {
		return 0
	}
	x, y := uint64(elapsed-start), uint64(d-start)
	if x >= y {
		return 99
	}
	hi, lo := bits.Mul64(x, 100)
	q, _ := bits.Div64(hi, lo, y) // hi < y because x < y, so no panic
	return min(int(q), 99)
}
