package conformance

import (
	"context"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/onsi/gomega"

	"contractkit/conformance/client"
	"contractkit/mockserver"
)

// BenchmarkExplore gives the explore phase's pace against the in-process
// mock (the same process, over loopback): requests per second of a phase
// with the default budget, shrinking aside (the mock breaks no property).
func BenchmarkExplore(b *testing.B) {
	gomega.RegisterTestingT(b) // the clean-up waits with Eventually
	srv, err := mockserver.New(mockserver.Config{Keys: []string{"bench-a", "bench-b"}, TokenInterval: time.Millisecond, TrainDuration: time.Second, EvalDuration: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	u, _ := url.Parse(ts.URL)
	requests, took := 0, time.Duration(0)
	for i := 0; i < b.N; i++ {
		e := newEnv(Config{BaseURL: ts.URL, APIKey: "bench-a", APIKey2: "bench-b", Timeout: time.Minute, Explore: DefaultExplore, Seed: uint64(i + 1)})
		e.client = client.New(u, "bench-a", "bench-b", 30*time.Second)
		x := newExplorer(e, context.Background())
		start := time.Now()
		x.run()
		took += time.Since(start)
		requests += x.requests
		for _, o := range x.outcomes {
			if o.failure != nil {
				b.Fatalf("the mock broke %s: %s", o.failure.prop, o.failure.detail)
			}
		}
	}
	b.ReportMetric(float64(requests)/took.Seconds(), "requests/s")
	b.ReportMetric(float64(requests)/float64(b.N), "requests/phase")
}
