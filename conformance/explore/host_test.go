package explore

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"contractkit/conformance/client"
	"contractkit/mockserver"
)

// The accounts of the tests' mocks.
const (
	testKey  = "sk-explore-test-a"
	testKey2 = "sk-explore-test-b"
)

// testHost runs the phase against an in-process mock on 127.0.0.1 with two
// accounts; its clean-up deletes what it can (the mock goes with the test).
type testHost struct{ c *client.Client }

func (h testHost) Client() *client.Client  { return h.c }
func (testHost) Shared() map[string]string { return nil }
func (h testHost) Remove(ctx context.Context, path string) {
	h.c.Do(ctx, client.Request{Method: http.MethodDelete, Path: path})
}

func newTestHost(tb testing.TB) testHost {
	tb.Helper()
	srv, err := mockserver.New(mockserver.Config{Keys: []string{testKey, testKey2}, TokenInterval: time.Millisecond,
		TrainDuration: time.Second, EvalDuration: time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	tb.Cleanup(func() {
		srv.Shutdown()
		ts.Close()
		srv.Close()
	})
	u, _ := url.Parse(ts.URL)
	return testHost{c: client.New(u, testKey, testKey2, 30*time.Second)}
}

// Every request of the phase is observed: the coverage counts at least the
// phase's requests (its clean-up's come on top).
func TestExplorePhaseFeedsCoverage(t *testing.T) {
	h := newTestHost(t)
	found := Run(context.Background(), h, Config{Seed: 11, Budget: 80, SecondAccount: true})
	cov := h.c.Coverage()
	calls := cov.Totals.UnroutedRequests
	for _, o := range cov.Operations {
		calls += o.Calls
	}
	if found.Requests() == 0 || calls < found.Requests() {
		t.Errorf("the explore phase sent %d requests, the coverage saw %d answers", found.Requests(), calls)
	}
	for _, p := range Properties() {
		if f := found.Outcome(p.ID).Failure; f != nil {
			t.Errorf("the mock broke %s:\n%s", p.ID, f.Text)
		}
	}
}
