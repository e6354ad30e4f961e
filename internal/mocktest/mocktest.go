// Package mocktest serves the in-process mock to a test that runs the
// suite against it: the default fixtures unless the configuration names
// others, on 127.0.0.1, behind a mutant of package mutation when asked
// (what `mockserver --break NAME` serves, without a binary to build). The
// conformance suite's and the GitHub Action's tests use it; only tests
// link it.
package mocktest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"contractkit/fixtures"
	"contractkit/mockserver"
	"contractkit/mutation"
)

// Serve starts the mock of cfg (cfg.Fixtures nil: the default set) behind
// the mutant named breakName ("" for none) and returns its server, closed
// when the test ends.
func Serve(t testing.TB, cfg mockserver.Config, breakName string) *httptest.Server {
	t.Helper()
	if cfg.Fixtures == nil {
		set := fixtures.Default()
		cfg.Fixtures = &set
	}
	srv, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if breakName != "" {
		mu, err := mutation.Lookup(breakName)
		if err != nil {
			t.Fatal(err)
		}
		h = mu.Wrapper(mutation.Options{Keys: cfg.Keys})(srv)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Shutdown()
		ts.Close()
	})
	return ts
}
