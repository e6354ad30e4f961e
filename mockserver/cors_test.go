package mockserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// preflight sends the OPTIONS request a browser sends before a call from
// another origin that carries headers of its own.
func preflight(t *testing.T, ts *testServer, origin, method, path, headers string) *apiResponse {
	t.Helper()
	opts := []reqOpt{withHeader("Origin", origin), withHeader("Access-Control-Request-Method", method)}
	if headers != "" {
		opts = append(opts, withHeader("Access-Control-Request-Headers", headers))
	}
	return ts.client(t, "").do(http.MethodOptions, path, opts...).want(t, http.StatusNoContent)
}

// The headers real apps add to every fetch (Sentry, OpenTelemetry, their
// own) are allowed: a preflight gets every header it asks for.
func TestCORSAllowsTheHeadersAPreflightAsksFor(t *testing.T) {
	ts := newTestServer(t)
	const origin = "http://localhost:5173"
	asked := "authorization,baggage,content-type,sentry-trace,traceparent,tracestate,x-mock-console,x-request-id"
	r := preflight(t, ts, origin, "GET", "/api/v1/user/model", asked)
	allowed := strings.ToLower(r.Header.Get("Access-Control-Allow-Headers"))
	for _, h := range strings.Split(asked, ",") {
		if !strings.Contains(allowed, h) {
			t.Errorf("Access-Control-Allow-Headers %q lacks %s, which the preflight asked for", allowed, h)
		}
	}
	vary := strings.Join(r.Header.Values("Vary"), ", ")
	for _, h := range []string{"Origin", "Access-Control-Request-Headers"} {
		if !strings.Contains(vary, h) {
			t.Errorf("Vary %q lacks %s: a cache would give one app's answer to another", vary, h)
		}
	}

	// A list that is not header names, or too long, gets the mock's own list.
	for _, bad := range []string{"x-ok, bad name", "x-ok, x/y", strings.Repeat("x-long-header-name,", 300)} {
		r := preflight(t, ts, origin, "GET", "/api/v1/user/model", bad)
		got := r.Header.Get("Access-Control-Allow-Headers")
		if strings.Contains(got, "x-ok") || strings.Contains(got, "x-long") || !strings.Contains(got, "Authorization") {
			t.Errorf("asked %.40q: Access-Control-Allow-Headers got %q, want the mock's own list", bad, got)
		}
	}

	// The answer to the call itself: the page may read the mock's headers.
	c := ts.client(t, testKey1)
	resp := c.get("/api/v1/user/model", withHeader("Origin", origin), withHeader("Sentry-Trace", "abc-def-1"), withHeader("Baggage", "a=b"))
	expose := resp.want(t, 200).Header.Get("Access-Control-Expose-Headers")
	for _, h := range []string{"X-Mock-Unknown-Fields", "X-Mock-Override", "Retry-After"} {
		if !strings.Contains(expose, h) {
			t.Errorf("Access-Control-Expose-Headers %q lacks %s", expose, h)
		}
	}
}

// A preflight belongs to no account (browsers send it without the key): it
// is recorded in the journal of the account whose request it prepared, just
// before that request, marked as a preflight, and listed when asked for.
func TestPreflightsAreJournaledWithTheCallTheyPrepare(t *testing.T) {
	ts := newTestServer(t)
	const origin = "http://localhost:5173"
	c1, c2 := ts.client(t, testKey1), ts.client(t, testKey2)
	preflight(t, ts, origin, "POST", "/api/v1/user/conversations", "authorization,content-type,sentry-trace")
	preflight(t, ts, origin, "GET", "/api/v1/user/model?x=1", "authorization") // never followed: the browser gave up
	preflight(t, ts, origin, "GET", "/api/v1/user/dataset", "authorization,x-request-id")
	model := c1.models()[0]
	c1.post("/api/v1/user/conversations", map[string]any{"model_id": model.ID}, withHeader("Origin", origin), withHeader("Sentry-Trace", "t")).want(t, 200)
	c2.get("/api/v1/user/dataset", withHeader("Origin", origin)).want(t, 200)

	if got := journalOf(t, c1, "?path=/api/v1/user/conversations"); len(got) != 1 || got[0]["method"] != "POST" {
		t.Fatalf("the default listing: %d entries (%v), want the POST only", len(got), got)
	}
	entries := journalOf(t, c1, "?path=/api/v1/user/conversations&preflight=true")
	if len(entries) != 2 {
		t.Fatalf("with preflight=true: %d entries, want the preflight and the POST", len(entries))
	}
	pf, call := entries[0], entries[1]
	if pf["method"] != "OPTIONS" || pf["preflight"] != true || pf["status"] != 204.0 || call["method"] != "POST" {
		t.Fatalf("entries %v %v %v, %v: want the OPTIONS preflight (204) before the POST", pf["method"], pf["preflight"], pf["status"], call["method"])
	}
	if _, ok := call["preflight"]; ok {
		t.Error("the call itself is marked as a preflight")
	}
	reqH := pf["request"].(map[string]any)["headers"].(map[string]any)
	if fmt.Sprint(reqH["Access-Control-Request-Headers"]) != "[authorization,content-type,sentry-trace]" {
		t.Errorf("the preflight's request headers %v: want what the browser asked", reqH)
	}
	respH := pf["response"].(map[string]any)["headers"].(map[string]any)
	if !strings.Contains(fmt.Sprint(respH["Access-Control-Allow-Headers"]), "sentry-trace") {
		t.Errorf("the preflight's answer headers %v: want what the mock allowed", respH)
	}
	if curl := pf["curl"].(string); !strings.Contains(curl, "-X OPTIONS") || !strings.Contains(curl, "Access-Control-Request-Method: POST") || strings.Contains(curl, "Authorization") {
		t.Errorf("the preflight's curl %q: want the OPTIONS request as the browser sent it, without a key", curl)
	}

	// method=OPTIONS lists the preflights only; each account gets its own.
	if got := journalOf(t, c1, "?method=OPTIONS"); len(got) != 1 {
		t.Errorf("account 1, method=OPTIONS: %d entries, want its one preflight", len(got))
	}
	if got := journalOf(t, c2, "?method=OPTIONS"); len(got) != 1 || got[0]["path"] != "/api/v1/user/dataset" {
		t.Errorf("account 2, method=OPTIONS: %v, want the dataset list's preflight", got)
	}
	c1.get("/admin/requests?preflight=maybe").wantError(t, 422, "preflight")
}

// Preflights never followed by their call are bounded: the oldest go.
func TestPendingPreflightsAreBounded(t *testing.T) {
	ts := newTestServer(t)
	for i := range maxPendingPreflights + 50 {
		preflight(t, ts, "http://localhost:5173", "GET", fmt.Sprintf("/api/v1/user/model/%d", i), "authorization")
	}
	if n := ts.srv.preflights.len(); n != maxPendingPreflights {
		t.Errorf("%d preflights pending, want at most %d", n, maxPendingPreflights)
	}
	// A preflight for no API path is not kept at all.
	preflight(t, ts, "http://localhost:5173", "GET", "/admin/requests", "authorization")
	preflight(t, ts, "http://localhost:5173", "GET", "/healthz", "")
	if n := ts.srv.preflights.len(); n != maxPendingPreflights {
		t.Errorf("%d preflights pending after two outside /api/v1, want %d", n, maxPendingPreflights)
	}
}

// An app written for a cookie backend sends credentials: the mock allows
// them, with the page's own origin, never `*`.
func TestCORSAllowsCredentialsWithTheOriginEchoed(t *testing.T) {
	ts := newTestServer(t)
	const origin = "http://localhost:5173"
	pf := preflight(t, ts, origin, "GET", "/api/v1/user/model", "authorization")
	call := ts.client(t, testKey1).get("/api/v1/user/model", withHeader("Origin", origin)).want(t, 200)
	for name, h := range map[string]http.Header{"preflight": pf.Header, "call": call.Header} {
		if got := h.Get("Access-Control-Allow-Credentials"); got != "true" {
			t.Errorf("%s: Access-Control-Allow-Credentials %q, want true", name, got)
		}
		if got := h.Values("Access-Control-Allow-Origin"); len(got) != 1 || got[0] != origin {
			t.Errorf("%s: Access-Control-Allow-Origin %q, want the origin %s alone", name, got, origin)
		}
	}
	// Without an Origin (not a browser's cross-origin call) no CORS header at all.
	if got := ts.client(t, testKey1).get("/api/v1/user/model").want(t, 200).Header.Get("Access-Control-Allow-Credentials"); got != "" {
		t.Errorf("a call without Origin got Access-Control-Allow-Credentials %q", got)
	}
	// Chromium's Private Network Access asks before a public page calls a local address.
	r := ts.client(t, "").do(http.MethodOptions, "/api/v1/user/model", withHeader("Origin", "https://app.example.com"),
		withHeader("Access-Control-Request-Method", "GET"), withHeader("Access-Control-Request-Private-Network", "true"))
	if got := r.Header.Get("Access-Control-Allow-Private-Network"); got != "true" {
		t.Errorf("Access-Control-Allow-Private-Network %q, want true when asked", got)
	}
}

// A preflight whose call never comes is an orphan: journaled as such, with
// the probable reason, in the account that last called from its origin (or
// the first key's), and never given to a later call of the same URL.
func TestOrphanPreflightsAreJournaledAndNeverAttached(t *testing.T) {
	ts := newTestServer(t)
	const app, other = "http://localhost:5173", "http://localhost:3000"
	c1, c2 := ts.client(t, testKey1), ts.client(t, testKey2)
	c2.get("/api/v1/user/model", withHeader("Origin", app)).want(t, 200) // account 2 calls from the app's origin

	preflight(t, ts, app, "PURGE", "/api/v1/user/model", "authorization")   // refused: an orphan
	preflight(t, ts, app, "GET", "/api/v1/user/dataset", "authorization")   // the call never comes
	preflight(t, ts, other, "GET", "/api/v1/user/dataset", "authorization") // from an origin nobody called from
	ts.clock.Advance(3 * time.Second)
	preflight(t, ts, app, "GET", "/api/v1/user/dataset", "authorization,x-request-id") // this one's call comes
	c2.get("/api/v1/user/dataset", withHeader("Origin", app)).want(t, 200)
	ts.clock.Advance(preflightWindow)

	entries := journalOf(t, c2, "?preflight=true")
	var orphans []map[string]any
	for _, e := range entries {
		if e["orphan"] != nil {
			orphans = append(orphans, e)
		}
	}
	if len(orphans) != 2 {
		t.Fatalf("account 2 has %d orphan preflights, want the PURGE and the first dataset preflight: %v", len(orphans), entries)
	}
	reason := func(e map[string]any) string { return e["orphan"].(map[string]any)["reason"].(string) }
	if r := reason(orphans[0]); !strings.Contains(r, "probable CORS failure") || !strings.Contains(r, "PURGE") {
		t.Errorf("the PURGE orphan's reason %q: want a probable CORS failure naming the method", r)
	}
	if r := reason(orphans[1]); !strings.Contains(r, "no call followed") {
		t.Errorf("the dataset orphan's reason %q", r)
	}
	// The dataset call took its own preflight (the newer one), just before it.
	var pf, call map[string]any
	for i, e := range entries {
		if e["method"] == "GET" && e["path"] == "/api/v1/user/dataset" {
			call, pf = e, entries[i-1]
		}
	}
	if call == nil || pf["preflight"] != true || pf["orphan"] != nil ||
		!strings.Contains(fmt.Sprint(pf["request"].(map[string]any)["headers"].(map[string]any)["Access-Control-Request-Headers"]), "x-request-id") {
		t.Errorf("the dataset call's preflight %v: want the newer one, not the orphan", pf)
	}
	if got := journalOf(t, c2, ""); len(got) != 2 {
		t.Errorf("without preflight=true account 2 lists %d entries, want its 2 calls", len(got))
	}
	// From an origin no call came from: the first key's account.
	one := journalOf(t, c1, "?preflight=true")
	if len(one) != 1 || one[0]["orphan"] == nil || one[0]["request"].(map[string]any)["headers"].(map[string]any)["Origin"].([]any)[0] != other {
		t.Errorf("account 1 got %v, want the orphan from %s", one, other)
	}
}
