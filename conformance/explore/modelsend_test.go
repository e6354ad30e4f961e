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
