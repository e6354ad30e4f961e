package explore

import (
	"context"
	"testing"
	"time"

	"contractkit/conformance/refmodel/drive"
	"contractkit/judge"
)

// BenchmarkExplore gives the explore phase's pace against the in-process
// mock (the same process, over loopback): requests per second of a phase
// with the default budget, shrinking aside (the mock breaks no property).
func BenchmarkExplore(b *testing.B) {
	h := newTestHost(b)
	requests, took := 0, time.Duration(0)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		found := Run(context.Background(), h, Config{Seed: uint64(i + 1), Budget: DefaultBudget, SecondAccount: true})
		took += time.Since(start)
		requests += found.Requests()
		for _, p := range Properties() {
			if f := found.Outcome(p.ID).Failure; f != nil {
				b.Fatalf("the mock broke %s:\n%s", p.ID, f.Text)
			}
		}
	}
	b.ReportMetric(float64(requests)/took.Seconds(), "requests/s")
	b.ReportMetric(float64(requests)/float64(b.N), "requests/phase")
}

// BenchmarkModelPhase gives the pace of the reference model's phase
// (package model/drive) through the host's client against the same mock:
// calls per second of a whole run (coverage, 100 random steps, clean-up),
// its waits for states on the mock's real clock included. The mock must
// break no declared prediction.
func BenchmarkModelPhase(b *testing.B) {
	h := newTestHost(b)
	calls, took := 0, time.Duration(0)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r := drive.Drive(context.Background(), ModelSender(h, nil), drive.Config{Seed: uint64(i + 1), Steps: DefaultBudget / 10})
		took += time.Since(start)
		calls += len(r.Steps)
		if fs := r.Class(judge.Declared); len(fs) > 0 {
			b.Fatalf("the mock broke the model's predictions:\n%s", r.Explain(fs))
		}
	}
	b.ReportMetric(float64(calls)/took.Seconds(), "calls/s")
	b.ReportMetric(float64(calls)/float64(b.N), "calls/phase")
}
