package lifecycle

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestModelTableExhaustive(t *testing.T) {
	want := map[State]map[Event]State{
		ModelQueued:   {ModelQueueDone: ModelTraining},
		ModelTraining: {ModelGraphStart: ModelBuilding},
		ModelBuilding: {ModelTrainDone: ModelReady, ModelTrainFail: ModelFailed},
		ModelReady:    {},
		ModelFailed:   {},
	}
	checkExhaustive(t, modelTable,
		[]State{ModelQueued, ModelTraining, ModelBuilding, ModelReady, ModelFailed},
		[]Event{ModelQueueDone, ModelGraphStart, ModelTrainDone, ModelTrainFail},
		want)
}

func ptr(t time.Time) *time.Time { return &t }

func TestTrainingStatePhases(t *testing.T) {
	const d = 100 * time.Second
	pct := func(p float64) time.Duration { return time.Duration(p * float64(d) / 100) }
	pending := ModelState{Status: "pending", GraphStatus: "pending"}
	training := ModelState{Status: "training", GraphStatus: "pending"}
	building := func(p int) ModelState {
		return ModelState{Status: "training", GraphStatus: "building", Progress: p}
	}
	ready := ModelState{Status: "ready", GraphStatus: "ready", Progress: 100, FineTuned: true, TrainedAt: ptr(t0.Add(d)), Done: true}
	failed := func(p int) ModelState {
		return ModelState{Status: "failed", GraphStatus: "failed", Progress: p, Done: true}
	}
	cases := []struct {
		at       time.Duration
		willFail bool
		want     ModelState
		phase    State
	}{
		{-time.Hour, false, pending, ModelQueued}, // clock skew counts as 0
		{0, false, pending, ModelQueued},
		{pct(5), false, pending, ModelQueued},
		{pct(10) - 1, false, pending, ModelQueued},
		{pct(10), false, training, ModelTraining},
		{pct(30), false, training, ModelTraining},
		{pct(50) - 1, false, training, ModelTraining},
		{pct(50), false, building(0), ModelBuilding},
		{pct(75), false, building(50), ModelBuilding},
		{pct(99.9), false, building(99), ModelBuilding},
		{d - 1, false, building(99), ModelBuilding},
		{d, false, ready, ModelReady},
		{pct(200), false, ready, ModelReady},
		// Failure path: identical until D, then failed with frozen progress.
		{pct(5), true, pending, ModelQueued},
		{pct(30), true, training, ModelTraining},
		{pct(75), true, building(50), ModelBuilding},
		{pct(99.9), true, building(99), ModelBuilding},
		{d, true, failed(99), ModelFailed},
		{pct(200), true, failed(99), ModelFailed},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v fail=%v", c.at, c.willFail), func(t *testing.T) {
			clk := NewFakeClock(t0)
			clk.Advance(c.at)
			tr := Training{CreatedAt: t0, Duration: d, WillFail: c.willFail}
			got := TrainingState(tr, clk.Now())
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("TrainingState = %s, want %s", show(got), show(c.want))
			}
			if p := TrainingPhase(tr, clk.Now()); p != c.phase {
				t.Errorf("TrainingPhase = %q, want %q", p, c.phase)
			}
		})
	}
}

func TestTrainingStateZeroDuration(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Minute} {
		got := TrainingState(Training{CreatedAt: t0, Duration: d}, t0)
		want := ModelState{Status: "ready", GraphStatus: "ready", Progress: 100, FineTuned: true, TrainedAt: ptr(t0), Done: true}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("D=%v: %s, want %s", d, show(got), show(want))
		}
		got = TrainingState(Training{CreatedAt: t0, Duration: d, WillFail: true}, t0)
		want = ModelState{Status: "failed", GraphStatus: "failed", Progress: 0, Done: true}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("D=%v fail: %s, want %s", d, show(got), show(want))
		}
	}
}

// Real clients must recognise every value we emit (REFERENCE.md §2).
func TestStatusValuesRecognisedByClients(t *testing.T) {
	ready := []string{"ready", "completed", "complete", "active", "deployed", "available", "success"}
	failed := []string{"failed", "error", "cancelled"}
	progress := []string{"building", "training", "processing", "pending", "queued", "preparing", "in_progress", "running", "creating"}
	for _, v := range []string{StatusPending, StatusTraining, GraphPending, GraphBuilding} {
		if !slices.Contains(progress, v) {
			t.Errorf("in-progress value %q not recognised by clients", v)
		}
	}
	for _, v := range []string{StatusReady, GraphReady} {
		if !slices.Contains(ready, v) {
			t.Errorf("ready value %q not recognised", v)
		}
	}
	for _, v := range []string{StatusFailed, GraphFailed} {
		if !slices.Contains(failed, v) {
			t.Errorf("failed value %q not recognised", v)
		}
	}
}

func TestTrainingStateIsPure(t *testing.T) {
	tr := Training{CreatedAt: t0, Duration: time.Hour}
	for _, at := range []time.Duration{0, 40 * time.Minute, 2 * time.Hour} {
		a, b := TrainingState(tr, t0.Add(at)), TrainingState(tr, t0.Add(at))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("at %v: %s then %s", at, show(a), show(b))
		}
		if a.TrainedAt != nil && a.TrainedAt == b.TrainedAt {
			t.Errorf("TrainedAt pointer shared between calls; callers could mutate each other's result")
		}
	}
}

var statusRank = map[string]int{"pending": 0, "training": 1, "ready": 2, "failed": 2}
var graphRank = map[string]int{"pending": 0, "building": 1, "ready": 2, "failed": 2}

// Sweep now across the whole training for several durations (including
// tiny and huge ones where integer rounding and overflow would show) and
// check nothing ever moves backwards and every phase change is a path
// through the table.
func TestTrainingStateMonotonic(t *testing.T) {
	durations := []time.Duration{
		0, 1, 7, 19, time.Second, 100 * time.Second, 37*time.Minute + 13*time.Millisecond,
		3 * 365 * 24 * time.Hour, // beyond where int64 100*x would overflow
		time.Duration(math.MaxInt64 / 2),
	}
	for _, d := range durations {
		for _, willFail := range []bool{false, true} {
			tr := Training{CreatedAt: t0, Duration: d, WillFail: willFail}
			var offsets []time.Duration
			const steps = 2000
			for i := -steps / 10; i <= 2*steps; i++ {
				offsets = append(offsets, time.Duration(float64(d)*float64(i)/steps))
			}
			for _, b := range []time.Duration{d / 10, d / 2, d} {
				offsets = append(offsets, b-1, b, b+1)
			}
			slices.Sort(offsets)

			prev := TrainingState(tr, t0.Add(offsets[0]))
			prevPhase := TrainingPhase(tr, t0.Add(offsets[0]))
			for _, off := range offsets[1:] {
				now := t0.Add(off)
				cur := TrainingState(tr, now)
				phase := TrainingPhase(tr, now)
				where := fmt.Sprintf("D=%v fail=%v at %v", d, willFail, off)
				if cur.Progress < prev.Progress {
					t.Fatalf("%s: progress %d -> %d", where, prev.Progress, cur.Progress)
				}
				if statusRank[cur.Status] < statusRank[prev.Status] || graphRank[cur.GraphStatus] < graphRank[prev.GraphStatus] {
					t.Fatalf("%s: %s -> %s", where, show(prev), show(cur))
				}
				if (prev.FineTuned && !cur.FineTuned) || (prev.Done && !cur.Done) {
					t.Fatalf("%s: flag regressed %s -> %s", where, show(prev), show(cur))
				}
				if (cur.Progress == 100) != (cur.GraphStatus == GraphReady) {
					t.Fatalf("%s: progress 100 without graph ready: %s", where, show(cur))
				}
				if cur.Progress < 0 || cur.Progress > 100 {
					t.Fatalf("%s: progress out of range: %d", where, cur.Progress)
				}
				if !reachable(prevPhase, phase) {
					t.Fatalf("%s: phase %q -> %q is not a path in the table", where, prevPhase, phase)
				}
				prev, prevPhase = cur, phase
			}
			if !prev.Done {
				t.Errorf("D=%v fail=%v: not done at 2D: %s", d, willFail, show(prev))
			}
		}
	}
}

// reachable reports whether to can be reached from from by zero or more
// table transitions.
func reachable(from, to State) bool {
	seen := map[State]bool{from: true}
	queue := []State{from}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s == to {
			return true
		}
		for _, tr := range modelTable.transitions {
			if tr.From == s && !seen[tr.To] {
				seen[tr.To] = true
				queue = append(queue, tr.To)
			}
		}
	}
	return false
}

func show(s ModelState) string {
	at := "nil"
	if s.TrainedAt != nil {
		at = s.TrainedAt.Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("{%s %s %d fine=%v trained_at=%s done=%v}", s.Status, s.GraphStatus, s.Progress, s.FineTuned, at, s.Done)
}
