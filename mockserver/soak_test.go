package mockserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSoak drives the mock for SOAK_DURATION (skipped when unset; `make
// soak DURATION=2m`, a 10 s run in `make test`): stream churn, clients that
// leave mid-stream, uploads, evaluations started and refused, and resets,
// across several keys, on 127.0.0.1. Then goroutines and resident memory
// must return near their baseline, and no request may have had a 5xx.
func TestSoak(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("SOAK_DURATION"))
	if err != nil || d <= 0 {
		t.Skip("set SOAK_DURATION (e.g. 10s) to soak")
	}
	keys := []string{testKey1, testKey2, "sk-soak-three", "sk-soak-four"}
	ts := newTestServer(t, withConfig(func(c *Config) {
		c.Keys = keys
		c.TokenInterval = time.Millisecond
	}))
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	defer client.CloseIdleConnections()

	runtime.GC()
	baseG, baseRSS := runtime.NumGoroutine(), rss()
	var requests, fivexx, failures atomic.Int64
	var firstProblem sync.Once
	problem := func(format string, args ...any) {
		failures.Add(1)
		firstProblem.Do(func() { t.Errorf(format, args...) })
	}
	do := func(ctx context.Context, key, method, path, ct string, body []byte) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, method, ts.url+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		requests.Add(1)
		resp, err := client.Do(req)
		if err == nil && resp.StatusCode >= 500 {
			fivexx.Add(1)
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			problem("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return resp, err
	}
	call := func(key, method, path, ct string, body []byte) int {
		resp, err := do(context.Background(), key, method, path, ct, body)
		if err != nil {
			problem("%s %s: %v", method, path, err)
			return 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	readyModel := func(key string) int64 {
		resp, err := do(context.Background(), key, http.MethodGet, "/api/v1/user/model", "", nil)
		if err != nil {
			return 0
		}
		defer resp.Body.Close()
		var env struct {
			Data []struct {
				ID     int64   `json:"id"`
				Status *string `json:"status"`
			} `json:"data"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&env)
		for _, m := range env.Data {
			if m.Status != nil && *m.Status == "ready" {
				return m.ID
			}
		}
		return 0
	}
	stream := func(key string, leave bool) {
		m := readyModel(key)
		if m == 0 {
			return // the account is being reset
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp, err := do(ctx, key, http.MethodPost, "/api/v1/user/inference", "application/json",
			fmt.Appendf(nil, `{"query":"warranty and leave","model_id":%d}`, m))
		if err != nil {
			problem("inference: %v", err)
			return
		}
		defer resp.Body.Close()
		if leave {
			_, _ = bufio.NewReader(resp.Body).ReadString('\n')
			cancel() // the client leaves mid-stream
			return
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == 200 && !bytes.Contains(b, []byte("[DONE]")) {
			problem("a stream ended without [DONE]: %.200s", b)
		}
	}
	upload := func(key string, n int) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		_ = mw.WriteField("dataset_name", "soak "+strconv.Itoa(n))
		w, _ := mw.CreateFormFile("files", "notes.txt")
		_, _ = io.WriteString(w, strings.Repeat("The soak test writes this line of text. ", 200))
		w, _ = mw.CreateFormFile("files", "broken.json")
		_, _ = io.WriteString(w, `{"a":`)
		_ = mw.Close()
		call(key, http.MethodPost, "/api/v1/user/dataset", mw.FormDataContentType(), b.Bytes())
	}
	evaluate := func(key string, n int) {
		m := readyModel(key)
		if m == 0 {
			return
		}
		resp, err := do(context.Background(), key, http.MethodPost, "/api/v1/evaluations", "application/json",
			fmt.Appendf(nil, `{"name":"soak %d","model_id":%d}`, n, m))
		if err != nil {
			return
		}
		var env struct {
			Data struct {
				ID int64 `json:"id"`
			} `json:"data"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		path := fmt.Sprintf("/api/v1/evaluations/%d/start", env.Data.ID)
		call(key, http.MethodPost, path, "application/json", []byte(`{}`))
		call(key, http.MethodPost, path, "application/json", []byte(`{}`)) // refused: already running
	}

	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range 8 { // bounded: 8 workers until the deadline
		wg.Go(func() {
			key := keys[w%len(keys)]
			for n := 0; time.Now().Before(deadline); n++ {
				switch n % 6 {
				case 0, 1:
					stream(key, false)
				case 2:
					stream(key, true)
				case 3:
					upload(key, n)
				case 4:
					evaluate(key, n)
				case 5:
					if w == 0 && n%30 == 5 {
						call(key, http.MethodPost, "/admin/reset", "", nil)
					} else {
						call(key, http.MethodGet, "/api/v1/user/dataset", "", nil)
					}
				}
			}
		})
	}
	wg.Wait()
	client.CloseIdleConnections()

	// Open streams and connections wind down; poll, bounded.
	var g int
	for range 100 {
		runtime.GC()
		if g = runtime.NumGoroutine(); g <= baseG+5 {
			break
		}
		time.Sleep(100 * time.Millisecond) // waiting for handlers of closed connections to return
	}
	afterRSS := rss()
	t.Logf("soak %s: %d requests, %d 5xx, %d problems; goroutines %d -> %d; RSS %d MiB -> %d MiB",
		d, requests.Load(), fivexx.Load(), failures.Load(), baseG, g, baseRSS>>20, afterRSS>>20)
	if g > baseG+5 {
		t.Errorf("goroutines got %d after the soak, want near the baseline %d", g, baseG)
	}
	// Datasets accumulate between resets, so some growth is expected; a
	// leak of streams or bodies shows as far more than this.
	if baseRSS > 0 && afterRSS > baseRSS+256<<20 {
		t.Errorf("RSS got %d MiB after the soak, want within 256 MiB of the baseline %d MiB", afterRSS>>20, baseRSS>>20)
	}
	if fivexx.Load() > 0 {
		t.Errorf("%d answers were 5xx", fivexx.Load())
	}
}

// rss is the resident memory of this process (Linux), 0 when unknown.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}
