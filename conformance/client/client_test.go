package client

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"contractkit/exchange"
)

const (
	testKey  = "sk-test-3f9a2c71-SECRET"
	testKey2 = "sk-test-second-SECRET"
)

// echoServer answers every request with its Authorization header and body
// echoed back, the way a careless server might.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo-Auth", r.Header.Get("Authorization"))
		json.NewEncoder(w).Encode(map[string]any{"status": "error", "message": "you sent " + r.Header.Get("Authorization") + " and " + string(body)})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newTestClient(t *testing.T, base string) *Client {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return New(u, testKey, testKey2, 5*time.Second)
}

func TestExchangeNeverShowsTheKeys(t *testing.T) {
	srv := echoServer(t)
	c := newTestClient(t, srv.URL)
	reqs := []Request{
		{Method: http.MethodGet, Path: "/api/v1/user/model"},
		{Method: http.MethodPost, Path: "/api/v1/user/model", JSON: map[string]any{"model_name": "has " + testKey + " inside"}, Auth: AuthKey2},
		{Method: http.MethodGet, Path: "/api/v1/user/model", Query: url.Values{"k": {testKey}}},
		{Method: http.MethodGet, Path: "/api/v1/user/model", Auth: AuthRaw, RawAuth: "Token " + testKey},
		{Method: http.MethodPost, Path: "/api/v1/user/dataset", Form: &exchange.Form{Fields: []exchange.FormField{{Name: "dataset_name", Value: testKey2}}, Files: []exchange.FormFile{{Field: "files", Name: "pricing.json", Content: []byte(`{"plans":[]}`)}}}},
	}
	for _, r := range reqs {
		x := c.Do(context.Background(), r)
		if x.Status != http.StatusOK {
			t.Fatalf("%s: %s", x.Line(), x.Error)
		}
		js, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		for _, shown := range []string{x.String(), x.Line(), x.Curl, string(js), exchange.Log{x}.String()} {
			for _, key := range []string{testKey, testKey2} {
				if strings.Contains(shown, key) {
					t.Errorf("%s %s: a key appears in the report:\n%s", r.Method, r.Path, shown)
				}
			}
		}
		if !strings.Contains(string(x.Raw), "you sent") {
			t.Errorf("Raw() lost the body: %q", x.Raw)
		}
	}
}

func TestCurlRendering(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:9/base")
	c := New(u, testKey, testKey2, time.Second)
	tests := []struct {
		name string
		req  Request
		want []string
	}{
		{"get with the first key", Request{Method: http.MethodGet, Path: "/api/v1/user/model"},
			[]string{`curl -sS -i 'http://127.0.0.1:9/base/api/v1/user/model'`, `-H "Authorization: Bearer $CONFORMANCE_API_KEY"`}},
		{"second key", Request{Method: http.MethodGet, Path: "/x", Auth: AuthKey2},
			[]string{`-H "Authorization: Bearer $CONFORMANCE_API_KEY_2"`}},
		{"no key", Request{Method: http.MethodGet, Path: "/x", Auth: AuthNone},
			nil},
		{"json body with a quote", Request{Method: http.MethodPost, Path: "/x", JSON: map[string]any{"title": "it's"}},
			[]string{`-X POST`, `-H 'Content-Type: application/json'`, `--data-raw '{"title":"it'\''s"}'`}},
		{"query", Request{Method: http.MethodDelete, Path: "/x/7", Query: url.Values{"permanent": {"true"}}},
			[]string{`-X DELETE 'http://127.0.0.1:9/base/x/7?permanent=true'`}},
		{"multipart", Request{Method: http.MethodPost, Path: "/d", Form: &exchange.Form{Fields: []exchange.FormField{{Name: "dataset_name", Value: "ck-1"}},
			Files: []exchange.FormFile{{Field: "files", Name: "empty.txt", Source: "fixtures/files/bad/empty.txt"}}}},
			[]string{`--form-string 'dataset_name=ck-1'`, `-F 'files=@fixtures/files/bad/empty.txt;filename=empty.txt'`}},
		{"raw scheme", Request{Method: http.MethodGet, Path: "/x", Auth: AuthRaw, RawAuth: "Bearer "},
			[]string{`-H 'Authorization: Bearer '`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Nothing listens on port 9: the exchange fails, the curl is kept.
			x := c.Do(context.Background(), tt.req)
			for _, w := range tt.want {
				if !strings.Contains(x.Curl, w) {
					t.Errorf("curl = %s\nwant it to contain %s", x.Curl, w)
				}
			}
			if tt.req.Form != nil && strings.Contains(x.Curl, "Content-Type") {
				t.Errorf("curl = %s: a multipart request must let curl write its boundary", x.Curl)
			}
			if tt.req.Auth == AuthNone && strings.Contains(x.Curl, "Authorization") {
				t.Errorf("curl = %s: no Authorization header was sent", x.Curl)
			}
			if strings.Contains(x.Curl, testKey) || strings.Contains(x.Curl, testKey2) {
				t.Errorf("curl shows a key: %s", x.Curl)
			}
		})
	}
}

func TestCurlElidesLargeBodies(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:9")
	c := New(u, testKey, "", time.Second)
	x := c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/x", Body: []byte(strings.Repeat("a", exchange.CurlBodyLimit+1)), ContentType: "application/json"})
	if len(x.Curl) > 1000 || !strings.Contains(x.Curl, "not shown") {
		t.Errorf("curl of a large body = %.200s…", x.Curl)
	}
	if len(x.RequestBody) > exchange.ExcerptLimit+100 {
		t.Errorf("request body excerpt is %d bytes", len(x.RequestBody))
	}
}

func TestLogAndReset(t *testing.T) {
	srv := echoServer(t)
	c := newTestClient(t, srv.URL)
	c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/a"})
	c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/b"})
	if n := len(c.Log()); n != 2 {
		t.Fatalf("log has %d exchanges, want 2", n)
	}
	c.Reset()
	if n := len(c.Log()); n != 0 {
		t.Fatalf("log has %d exchanges after Reset, want 0", n)
	}
}

// limitedServer answers 429 with Retry-After: 0 to the first limited
// requests, then 200; a gzip-capable client gets a gzip body.
func limitedServer(t *testing.T, limited int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if seen.Add(1) <= int64(limited) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"status":"error","message":"slow down"}`)
			return
		}
		body := []byte(`{"status":"success","data":{"ok":true}}`)
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(body)
			zw.Close()
			body = b.Bytes()
			w.Header().Set("Content-Encoding", "gzip")
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestClientWaitsOutA429(t *testing.T) {
	srv, seen := limitedServer(t, 2)
	c := newTestClient(t, srv.URL)
	x := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/x"})
	if x.Status != http.StatusOK || c.Retries() != 2 || seen.Load() != 3 {
		t.Fatalf("status %d after %d retries and %d requests, want 200 after 2 and 3", x.Status, c.Retries(), seen.Load())
	}
	// The client asks for gzip and reads the body decompressed.
	if !strings.Contains(string(x.Raw), `"ok":true`) {
		t.Errorf("body %q, want the decompressed JSON", x.Raw)
	}
	if n := len(c.Log()); n != 3 {
		t.Errorf("log holds %d exchanges, want the two 429s and the 200", n)
	}
}

func TestClientRetriesAreBounded(t *testing.T) {
	srv, seen := limitedServer(t, 1000)
	c := newTestClient(t, srv.URL)
	x := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/x"})
	if x.Status != http.StatusTooManyRequests || seen.Load() != MaxRetries+1 {
		t.Fatalf("status %d after %d requests, want 429 after %d", x.Status, seen.Load(), MaxRetries+1)
	}
}

func TestClientNoRetrySeesThe429(t *testing.T) {
	srv, seen := limitedServer(t, 1)
	c := newTestClient(t, srv.URL)
	x := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/x", NoRetry: true})
	if x.Status != http.StatusTooManyRequests || seen.Load() != 1 || c.Retries() != 0 {
		t.Fatalf("status %d after %d requests, %d retries; want the 429 of the first", x.Status, seen.Load(), c.Retries())
	}
}

func TestClientRetryStopsAtTheContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "20")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	x := c.Do(ctx, Request{Method: http.MethodGet, Path: "/x"})
	if x.Status != http.StatusTooManyRequests || time.Since(start) > time.Second {
		t.Fatalf("status %d after %s, want the 429 at once (a 20s wait exceeds the context)", x.Status, time.Since(start))
	}
}

// Open shares Do's retry loop: the 429s are read and recorded, the last
// answer comes back with its body unread.
func TestClientOpenWaitsOutA429(t *testing.T) {
	srv, seen := limitedServer(t, 2)
	c := newTestClient(t, srv.URL)
	resp, x := c.Open(context.Background(), Request{Method: http.MethodGet, Path: "/x"})
	if resp == nil || resp.StatusCode != http.StatusOK || c.Retries() != 2 || seen.Load() != 3 {
		t.Fatalf("%s after %d retries and %d requests, want 200 after 2 and 3", x.Line(), c.Retries(), seen.Load())
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.Finish(x, body, err)
	if !strings.Contains(string(x.Raw), `"ok":true`) {
		t.Errorf("body %q, want the JSON the caller read", x.Raw)
	}
	if n := len(c.Log()); n != 3 {
		t.Errorf("log holds %d exchanges, want the two 429s and the 200", n)
	}
}
