package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"contractkit/spec/spectest"
)

// cutStreams is how many streams TestNoCutStreams sends, cutWorkers how
// many at once. A plain httputil.ReverseProxy in front of the mock cuts
// about 1 stream in 200 ("200, one event, then unexpected EOF": Go issue
// 40747) when the mock paces its tokens (measured here: 8 of 2000, 10 of
// 1000). Under the race detector, four times slower, 400 streams keep the
// test near 15 s; the plain run sends the 2000.
const cutWorkers = 16

func cutStreams() int64 {
	if raceDetector {
		return 400
	}
	return 2000
}

// Every stream sent through the proxy to the mock arrives whole: 200, and
// its last event `data: [DONE]`.
func TestNoCutStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("2000 streams: not with -short")
	}
	// Paced streams: the cut shows when the answer's header is written
	// while the upstream request may still be sending.
	th := newThrough(t, newMock(t, "", time.Millisecond).URL)
	// Each stream is also held to the contract as it passes (spectest).
	client := spectest.NewClient(t, &http.Transport{MaxIdleConnsPerHost: cutWorkers})
	defer client.CloseIdleConnections()
	var next, cut atomic.Int64
	var mu sync.Mutex
	var firstCut string
	var wg sync.WaitGroup
	for w := 0; w < cutWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= cutStreams() {
				if why := oneStream(client, th.URL); why != "" {
					cut.Add(1)
					mu.Lock()
					if firstCut == "" {
						firstCut = why
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	th.settle(t)
	if n := cut.Load(); n > 0 {
		t.Fatalf("%d of %d streams cut through the proxy; the first: %s", n, cutStreams(), firstCut)
	}
	if d, dec, c := th.Log.Counts(); d+dec+c != 0 {
		t.Fatalf("findings on the mock's streams: %d declared, %d decided, %d client:\n%s", d, dec, c, th.Out)
	}
}

// oneStream sends one inference request and says why its answer is not a
// whole stream ("" when it is).
func oneStream(client *http.Client, base string) string {
	req, _ := http.NewRequest("POST", base+"/api/v1/user/inference", strings.NewReader(inferenceBody))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return fmt.Sprintf("%d, %d bytes, then %v", resp.StatusCode, len(body), err)
	case resp.StatusCode != 200:
		return fmt.Sprintf("status %d", resp.StatusCode)
	case !strings.HasSuffix(strings.TrimSpace(string(body)), "data: [DONE]"):
		return fmt.Sprintf("200, %d bytes, no [DONE] at the end", len(body))
	}
	return ""
}

// A client that leaves mid-stream: the proxy stops the upstream request,
// records the exchange as left by the client (no violation) and leaves no
// goroutine behind.
func TestClientLeavesMidStream(t *testing.T) {
	upstreamDone := make(chan struct{})
	upstream := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		defer close(upstreamDone)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		// Bounded: a proxy that never stops the upstream fails the test
		// by the wait below, not by a stream without end.
		for i := 0; i < 10000; i++ {
			fmt.Fprintf(w, "data: {\"type\":\"token\",\"content\":\"t%d \"}\n\n", i)
			if rc.Flush() != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	})
	th := newThrough(t, upstream)
	before := runtime.NumGoroutine()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", th.URL+"/api/v1/user/inference", strings.NewReader(inferenceBody))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	tr := &http.Transport{}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("the first event: %q, %v", line, err)
	}
	cancel() // the client leaves
	resp.Body.Close()
	tr.CloseIdleConnections()

	select {
	case <-upstreamDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream stream was not stopped when the client left")
	}
	th.settle(t)
	out := th.Out.String()
	if !strings.Contains(out, "LEFT runInference: the client left") {
		t.Fatalf("the exchange is not recorded as left by the client:\n%s", out)
	}
	if d, dec, _ := th.Log.Counts(); d+dec != 0 {
		t.Fatalf("a client that left counted against the server:\n%s", out)
	}
	ops, _ := th.Log.snapshot()
	if len(ops) != 1 || ops[0].left != 1 {
		t.Fatalf("operations seen: %+v, want runInference left once", ops)
	}
	// The proxy's own goroutines (the exchange, its stream judge, the
	// upstream connection) end; bounded polling.
	eventually(t, 10*time.Second, fmt.Sprintf("goroutines back to %d", before), func() bool {
		return runtime.NumGoroutine() <= before
	})
}
