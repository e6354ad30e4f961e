package explore

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"contractkit/conformance/client"
	"contractkit/conformance/refmodel"
	"contractkit/exchange"
	"contractkit/internal/hostile"
)

// The reference model's part keeps every exchange it made until its check
// reports: as reports show them, never with their bodies. Against a
// server whose every answer never ends, each kept body would hold the
// body bound (8 MiB): 47 answers of the model's part held 1258 MiB of
// resident memory before.
func TestModelSenderLogsNoBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hostile.Endless(w, r, "application/json", []byte(`{"status":"success","data":[`), ' ', 64<<20)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	var logged []*exchange.Exchange
	send := ModelSender(testHost{c: client.New(u, testKey, testKey2, 10*time.Second)}, func(x *exchange.Exchange) { logged = append(logged, x) })
	a := send.Send(context.Background(), refmodel.Call{Op: "listModels", Key: refmodel.KeyA})
	if !a.Cut || a.Body != nil {
		t.Errorf("an endless answer: cut %t, body %v; want it cut and no body", a.Cut, a.Body)
	}
	if len(logged) != 1 || logged[0].Raw != nil || logged[0].Sent != nil || !strings.Contains(logged[0].Error, "over 8 MiB") {
		t.Fatalf("logged %d exchanges: %+v; want one, with the bound's reason and no body", len(logged), logged)
	}
}

// How a model's call is carried (refmodel.Wire) is how it goes out: a
// body chunked after Expect: 100-continue, a query's space as %20, a path
// id percent-encoded.
func TestModelSenderCarriesTheWire(t *testing.T) {
	var got *http.Request
	var chunked bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, chunked = r.Clone(context.Background()), len(r.TransferEncoding) > 0
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":{}}`))
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	send := ModelSender(testHost{c: client.New(u, testKey, testKey2, 10*time.Second)}, nil)
	c := refmodel.Call{Op: "updateEvaluation", Key: refmodel.KeyA, Path: map[string]string{"evaluation_id": "4"}, Body: map[string]any{"name": "a"},
		Wire: refmodel.Wire{Chunked: true, Continue: true, Escaped: true}}
	if a := send.Send(context.Background(), c); a.Status != http.StatusOK {
		t.Fatalf("status %d", a.Status)
	}
	if !chunked || got.ContentLength != -1 || got.Header.Get("Expect") != "100-continue" || got.URL.EscapedPath() != "/api/v1/evaluations/%34" {
		t.Errorf("sent chunked %t, length %d, Expect %q, path %s", chunked, got.ContentLength, got.Header.Get("Expect"), got.URL.EscapedPath())
	}
	q := refmodel.Call{Op: "checkEvaluationName", Key: refmodel.KeyA, Query: url.Values{"name": {"a b"}}, Wire: refmodel.Wire{Space: refmodel.SpacePercent}}
	send.Send(context.Background(), q)
	if got.URL.RawQuery != "name=a%20b" {
		t.Errorf("query %q, want name=a%%20b", got.URL.RawQuery)
	}
}
