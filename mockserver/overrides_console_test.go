package mockserver

import (
	"fmt"
	"testing"
)

// An override is set for the app under test: the console's own calls (its
// refreshes and polls, sent with X-Mock-Console) neither match nor spend
// one, unless the override asks for them (match.console).
func TestOverridesLeaveTheConsolesOwnCallsAlone(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	app := offContract(t, ts, testKey1)
	m := c.models()[0]
	path := fmt.Sprintf("/api/v1/user/model/%d", m.ID)
	o := setOverride(t, c, getModel503(map[string]any{"times": 1}))

	for _, mark := range []string{"poll", "refresh"} {
		r := c.get(path, withHeader("X-Mock-Console", mark)).want(t, 200)
		if got := r.Header.Get("X-Mock-Override"); got != "" {
			t.Errorf("the console's %s was answered by override %s", mark, got)
		}
	}
	if l := listOverrides(t, c); len(l) != 1 || *l[0].Remaining != 1 {
		t.Fatalf("after the console's calls: %+v, want the override with its one use left", l)
	}
	app.get(path).wantError(t, 503)
	if l := listOverrides(t, c); len(l) != 0 {
		t.Errorf("after the app's call: %+v, want none left", l)
	}

	// The journal tells which call spent the use.
	entries := journalOf(t, c, "?path="+path)
	if len(entries) != 3 {
		t.Fatalf("journal: %d entries, want 3", len(entries))
	}
	for _, e := range entries[:2] {
		if e["override"] != nil {
			t.Errorf("a console call is marked %v", e["override"])
		}
	}
	if got := fmt.Sprint(entries[2]["override"]); got != fmt.Sprintf("map[id:%d kind:status use:1]", o.ID) {
		t.Errorf("the app's call is marked %s, want override %d, kind status, use 1", got, o.ID)
	}

	// match.console: the console's calls too.
	setOverride(t, c, getModel503(map[string]any{"times": 1, "match": map[string]any{"method": "GET", "path": modelTemplate, "console": true}}))
	offContract(t, ts, testKey1).get(path, withHeader("X-Mock-Console", "poll")).wantError(t, 503)
	c.model(m.ID)
}

// match.headers limits an override to requests that carry each header
// with that value: the app's Origin, say.
func TestOverrideMatchesHeaders(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	app := offContract(t, ts, testKey1)
	m := c.models()[0]
	path := fmt.Sprintf("/api/v1/user/model/%d", m.ID)
	const appOrigin = "http://127.0.0.1:5173"
	o := setOverride(t, c, getModel503(map[string]any{"match": map[string]any{
		"method": "GET", "path": modelTemplate, "headers": map[string]any{"origin": appOrigin},
	}}))
	if got := fmt.Sprint(o.Match["headers"]); got != "map[Origin:"+appOrigin+"]" {
		t.Errorf("match.headers listed as %s, want the canonical name", got)
	}
	c.get(path).want(t, 200)
	c.get(path, withHeader("Origin", "http://localhost:3000")).want(t, 200)
	app.get(path, withHeader("Origin", appOrigin)).wantError(t, 503)

	for _, bad := range []map[string]any{
		{"Authorization": "Bearer x"}, // a key would be listed by GET /admin/overrides
		{"Cookie": "a=b"},
		{"bad name": "x"},
		{"X-Long": string(make([]byte, maxOverrideMessage+1))},
	} {
		body := getModel503(map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate, "headers": bad}})
		c.post("/admin/overrides", body).wantError(t, 422, "match.headers")
	}
	many := map[string]any{}
	for i := range maxOverrideFields + 1 {
		many[fmt.Sprintf("X-H%d", i)] = "v"
	}
	c.post("/admin/overrides", getModel503(map[string]any{"match": map[string]any{"method": "GET", "path": modelTemplate, "headers": many}})).
		wantError(t, 422, "at most")
}

// Every use is numbered in the journal: with times 2, the two calls that
// spent them are use 1 and use 2, and GET /admin/overrides counts the uses.
func TestOverrideUsesAreNumbered(t *testing.T) {
	ts := newTestServer(t)
	c := ts.client(t, testKey1)
	app := offContract(t, ts, testKey1)
	m := c.models()[0]
	path := fmt.Sprintf("/api/v1/user/model/%d", m.ID)
	o := setOverride(t, c, getModel503(map[string]any{"times": 2}))
	app.get(path).wantError(t, 503)
	var listed []map[string]any
	c.get("/admin/overrides").want(t, 200).data(t, &listed)
	if len(listed) != 1 || listed[0]["used"] != 1.0 || listed[0]["remaining"] != 1.0 {
		t.Errorf("after one use: %v, want used 1, remaining 1", listed)
	}
	app.get(path).wantError(t, 503)
	c.get(path).want(t, 200)
	var uses []any
	for _, e := range journalOf(t, c, "?path="+path) {
		if mark, ok := e["override"].(map[string]any); ok && mark["id"] == float64(o.ID) {
			uses = append(uses, mark["use"])
		}
	}
	if fmt.Sprint(uses) != "[1 2]" {
		t.Errorf("the uses in the journal: %v, want [1 2]", uses)
	}
}
