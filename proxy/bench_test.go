package proxy

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The proxy's cost (make bench-proxy): throughput of GET by id through the
// proxy as a share of the mock's direct throughput, and the time to the
// first chunk of a paced stream through the proxy against direct. The
// figures are in the README (The validating proxy) and docs/PERFORMANCE.md.

// benchWorkers is how many clients send at once.
const benchWorkers = 8

// benchRounds is how many times the GET benchmark alternates direct and
// through the proxy.
const benchRounds = 6

// throughput sends n GET requests for one model from benchWorkers clients
// and returns requests per second.
func throughput(b *testing.B, base string, n int) float64 {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchWorkers}}
	defer client.CloseIdleConnections()
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < benchWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				req, _ := http.NewRequest("GET", base+"/api/v1/user/model/4", nil)
				req.Header.Set("Authorization", "Bearer "+testKey)
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// BenchmarkGetByID reports req/s direct and through the proxy, and their
// ratio (proxy/direct: 1 costs nothing).
func BenchmarkGetByID(b *testing.B) {
	mock := newMock(b, "", 0)
	th := newThrough(b, mock.URL)
	n := max(b.N, 200)
	throughput(b, mock.URL, 100) // warm both paths: connections, caches
	throughput(b, th.URL, 100)
	b.ResetTimer()
	// Alternate in rounds, so a change of the machine's load falls on
	// both sides alike; each side's rate is its requests over its time.
	var directTime, proxiedTime float64
	round := max(n/benchRounds, 1)
	for range benchRounds {
		directTime += float64(round) / throughput(b, mock.URL, round)
		proxiedTime += float64(round) / throughput(b, th.URL, round)
	}
	direct := float64(round*benchRounds) / directTime
	proxied := float64(round*benchRounds) / proxiedTime
	b.StopTimer()
	th.settle(b)
	b.ReportMetric(direct, "direct-req/s")
	b.ReportMetric(proxied, "proxy-req/s")
	b.ReportMetric(proxied/direct, "proxy/direct")
	if d, dec, c := th.Log.Counts(); d+dec+c != 0 {
		b.Fatalf("findings on conforming traffic:\n%s", th.Out)
	}
}

// firstChunk sends one inference request and returns the time until its
// first event arrived; the client then leaves.
func firstChunk(b *testing.B, base string) time.Duration {
	req, _ := http.NewRequest("POST", base+"/api/v1/user/inference", strings.NewReader(inferenceBody))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: ") {
		b.Fatalf("first event: %q, %v", line, err)
	}
	return time.Since(start)
}

// BenchmarkFirstChunk reports the time to the first chunk of a stream paced
// like a real model (the mock's default 20 ms between tokens), direct and
// through the proxy, in milliseconds (the mean over b.N streams each).
func BenchmarkFirstChunk(b *testing.B) {
	mock := newMock(b, "", 20*time.Millisecond)
	th := newThrough(b, mock.URL)
	firstChunk(b, mock.URL)
	firstChunk(b, th.URL)
	b.ResetTimer()
	var direct, proxied time.Duration
	for i := 0; i < b.N; i++ { // alternating, one stream each
		direct += firstChunk(b, mock.URL)
		proxied += firstChunk(b, th.URL)
	}
	b.StopTimer()
	th.settle(b)
	b.ReportMetric(float64(direct.Microseconds())/1000/float64(b.N), "direct-ms")
	b.ReportMetric(float64(proxied.Microseconds())/1000/float64(b.N), "proxy-ms")
	b.ReportMetric(float64(proxied-direct)/float64(b.N)/1e6, "added-ms")
}
