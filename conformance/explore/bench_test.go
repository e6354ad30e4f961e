package explore

import (
	"context"
	"testing"
	"time"
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
