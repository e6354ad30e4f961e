package proxycmd

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver"
	"contractkit/mutation"
)

// testKey is the key of the mock's one account in these tests.
const testKey = "proxy-test-key-0123456789"

// syncBuffer is the proxy's console, read by the test while the proxy
// writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newMock serves the in-process mock (default fixtures, streams paced by
// tokenInterval) on 127.0.0.1, behind mutant when it is not "".
func newMock(t testing.TB, mutant string, tokenInterval time.Duration) *httptest.Server {
	t.Helper()
	b := fixtures.Default()
	srv, err := mockserver.New(mockserver.Config{Keys: []string{testKey}, Fixtures: &b, TokenInterval: tokenInterval})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if mutant != "" {
		m, err := mutation.Lookup(mutant)
		if err != nil {
			t.Fatal(err)
		}
		h = m.Wrapper(mutation.Options{Keys: []string{testKey}})(srv)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Shutdown()
		ts.Close()
		srv.Close()
	})
	return ts
}
