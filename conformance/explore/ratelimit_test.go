package explore

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"contractkit/conformance/client"
	"contractkit/mockserver"
)

// A server may rate-limit any request (§8.4): 429 with Retry-After and the
// error envelope. The client waits a 429 out while the phase's time allows;
// one it cannot wait out (the deadline is nearer than Retry-After) leaves
// the property unjudged, before the deadline as after it — never "a
// resource just written cannot be read".
func TestARateLimitedServerBreaksNoProperty(t *testing.T) {
	const phase = 4 * time.Second
	srv, err := mockserver.New(mockserver.Config{Keys: []string{testKey, testKey2}, TokenInterval: time.Millisecond,
		TrainDuration: time.Second, EvalDuration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var n, late atomic.Int64
	var lateFrom atomic.Int64 // unix nanos from which every request is limited
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from := lateFrom.Load()
		// Late, every read is limited, and nothing else: a resource is
		// written, and reading it back meets a 429 the client cannot
		// wait out.
		inLate := from != 0 && time.Now().UnixNano() >= from && r.Method == http.MethodGet
		if strings.HasPrefix(r.URL.Path, "/api/") && (n.Add(1)%5 == 0 || inLate) {
			if inLate {
				late.Add(1)
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"status":"error","message":"rate limited"}`))
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.Shutdown()
		ts.Close()
		srv.Close()
	})
	u, _ := url.Parse(ts.URL)
	h := testHost{c: client.New(u, testKey, testKey2, 30*time.Second)}
	// In the last 1.5 s of the phase, and after it (its replays and its
	// clean-up), reads are limited: the waits no longer fit.
	lateFrom.Store(time.Now().Add(phase - 1500*time.Millisecond).UnixNano())
	found := Run(context.Background(), h, Config{Seed: 5, Budget: 2000, SecondAccount: true, Time: phase})
	if late.Load() == 0 || found.x.limited == 0 {
		t.Fatalf("no property met a 429 it could not wait out (%d limited late; %s)", late.Load(), found.RunLine())
	}
	for _, p := range Properties() {
		if f := found.Outcome(p.ID).Failure; f != nil {
			t.Errorf("a rate-limited server broke %s:\n%s", p.ID, f.Text)
		}
	}
}
