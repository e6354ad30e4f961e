// Package proxytest serves what the proxy's tests and its command's tests
// put a proxy in front of: the in-process mock, whole or behind a mutant,
// and a console the test reads while the proxy writes it. Only tests link
// it (the proxy's core does not: proxy/deps_test.go).
package proxytest

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

// Key is the key of the mock's one account in these tests.
const Key = "proxy-test-key-0123456789"

// Buffer is the proxy's console, read by the test while the proxy writes it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Mock serves the in-process mock (default fixtures, streams paced by
// tokenInterval) on 127.0.0.1, behind mutant when it is not "".
func Mock(t testing.TB, mutant string, tokenInterval time.Duration) *httptest.Server {
	t.Helper()
	b := fixtures.Default()
	srv, err := mockserver.New(mockserver.Config{Keys: []string{Key}, Fixtures: &b, TokenInterval: tokenInterval})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if mutant != "" {
		m, err := mutation.Lookup(mutant)
		if err != nil {
			t.Fatal(err)
		}
		h = m.Wrapper(mutation.Options{Keys: []string{Key}})(srv)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Shutdown()
		ts.Close()
		srv.Close()
	})
	return ts
}
