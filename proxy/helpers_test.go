package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"contractkit/proxy/internal/proxytest"
	"contractkit/spec/spectest"
)

// The mock, its key and the console buffer come from proxytest.
const testKey = proxytest.Key

type syncBuffer = proxytest.Buffer

func newMock(t testing.TB, mutant string, tokenInterval time.Duration) *httptest.Server {
	return proxytest.Mock(t, mutant, tokenInterval)
}

// through is a proxy in front of target, its console and its log.
type through struct {
	URL string
	Out *syncBuffer
	Log *Log
	P   *Proxy
	// client sends the test's requests: a plain one, or one that holds
	// every answer to the contract (checked).
	client *http.Client
}

// checked makes the test's requests through a client that judges every
// answer against the contract (spec/spectest): for an upstream that keeps
// it, so the proxy is shown to pass its answers on unchanged.
func (th *through) checked(t testing.TB) *through {
	th.client = spectest.NewClient(t, nil)
	return th
}

func newThrough(t testing.TB, target string, observers ...Observer) *through {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	lg := NewLog(out)
	p := New(u, lg, observers...)
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	return &through{URL: ts.URL, Out: out, Log: lg, P: p, client: http.DefaultClient}
}

// do sends one request through the proxy with the test key and returns
// the status and the whole body.
func (th *through) do(t testing.TB, method, path, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, th.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testKey)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := th.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	// The exchange is judged once ReverseProxy returns, just after the
	// client read the end: wait (bounded) until it was counted.
	return resp.StatusCode, string(b)
}

// settle waits until every exchange in flight through the proxy ended.
func (th *through) settle(t testing.TB) {
	t.Helper()
	if !th.P.Wait(10 * time.Second) {
		t.Fatal("exchanges still in flight after 10 s")
	}
}

// eventually polls cond every 5 ms for at most d.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("not within %s: %s", d, what)
}

// inferenceBody asks model 4 of the default fixtures (ready) a question.
const inferenceBody = `{"model_id":4,"query":"What is the warranty period?"}`

// newUpstream serves h on 127.0.0.1 and returns its URL.
func newUpstream(t testing.TB, h http.HandlerFunc) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func readAll(r io.Reader) (string, error) {
	b, err := io.ReadAll(r)
	return string(b), err
}
