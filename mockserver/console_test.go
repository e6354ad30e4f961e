package mockserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"contractkit/spec"
)

// getConsole requests the console without a key.
func getConsole(t *testing.T, ts *testServer, method string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ts.hs.Client().Do(req)
	if err != nil {
		t.Fatalf("%s /: %v", method, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s /: reading the answer: %v", method, err)
	}
	return resp, body
}

func TestConsoleIsServedWithoutAKey(t *testing.T) {
	ts := newTestServer(t)
	resp, body := getConsole(t, ts, http.MethodGet)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /: status %d, want 200; body: %s", resp.StatusCode, snippet(body))
	}
	if got := resp.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("GET /: Content-Type %q, want text/html; charset=utf-8", got)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("GET /: X-Content-Type-Options %q, want nosniff", got)
	}
	if string(body) != string(consolePage) {
		t.Errorf("GET /: the body is not the embedded page (%d bytes, want %d)", len(body), len(consolePage))
	}
	page := string(body)
	for _, want := range []string{
		"/api/v1/user/dataset", "/api/v1/user/dataset/upload", "/api/v1/user/model",
		"/api/v1/user/conversations", "/api/v1/user/inference", "/api/v1/evaluations",
		"/admin/advance", "/admin/reset", "/admin/requests", "/admin/account", devKeyMarker, "sessionStorage", "getReader()",
		"AbortController", "[DONE]",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not contain %q", want)
		}
	}
}

func TestConsoleContentSecurityPolicy(t *testing.T) {
	ts := newTestServer(t)
	resp, body := getConsole(t, ts, http.MethodGet)
	csp := resp.Header.Get("Content-Security-Policy")
	if csp == "" {
		t.Fatal("GET /: no Content-Security-Policy header")
	}
	directives := map[string]string{}
	for _, d := range strings.Split(csp, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	if got := directives["default-src"]; got != "'self'" {
		t.Errorf("CSP default-src %q, want 'self'", got)
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "*") || strings.Contains(csp, "data:") || strings.Contains(csp, "http") {
		t.Errorf("CSP allows more than 'self' and the page's own inline code: %s", csp)
	}
	for _, tag := range []string{"script", "style"} {
		blocks := regexp.MustCompile(`(?s)<`+tag+`>(.*?)</`+tag+`>`).FindAllSubmatch(body, -1)
		if len(blocks) == 0 {
			t.Errorf("the page has no inline <%s>", tag)
		}
		if n := strings.Count(string(body), "<"+tag); n != len(blocks) {
			t.Errorf("the page has %d <%s tags, %d of them plain inline blocks: every %s must be an inline block without attributes", n, tag, len(blocks), tag)
		}
		want := make([]string, 0, len(blocks))
		for _, b := range blocks {
			sum := sha256.Sum256(b[1])
			want = append(want, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
		}
		if got := directives[tag+"-src"]; got != strings.Join(want, " ") {
			t.Errorf("CSP %s-src %q, want the hashes of the page's inline blocks %q", tag, got, strings.Join(want, " "))
		}
	}
	for _, d := range []string{"object-src", "base-uri", "frame-ancestors"} {
		if directives[d] != "'none'" {
			t.Errorf("CSP %s %q, want 'none'", d, directives[d])
		}
	}
}

func TestConsoleHeadAndWrongMethod(t *testing.T) {
	ts := newTestServer(t)
	resp, body := getConsole(t, ts, http.MethodHead)
	if resp.StatusCode != http.StatusOK || len(body) != 0 {
		t.Errorf("HEAD /: status %d with %d body bytes, want 200 and none", resp.StatusCode, len(body))
	}
	if got := resp.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("HEAD /: Content-Type %q, want text/html; charset=utf-8", got)
	}
	if resp.Header.Get("Content-Security-Policy") == "" {
		t.Error("HEAD /: no Content-Security-Policy header")
	}

	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		resp, body := getConsole(t, ts, method)
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s /: status %d, want 405", method, resp.StatusCode)
		}
		if got := mediaType(resp.Header.Get("Content-Type")); got != "application/json" {
			t.Errorf("%s /: Content-Type %q, want application/json", method, got)
		}
		var env struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Status != "error" || env.Message == "" {
			t.Errorf("%s /: body %s, want the error envelope", method, snippet(body))
		}
	}
}

// TestConsoleIsSelfContained keeps the page loadable without a network and
// safe with server data: no external address, no HTML built from strings.
func TestConsoleIsSelfContained(t *testing.T) {
	page := string(consolePage)
	for _, banned := range []string{
		"http://", "https://", "//cdn", "<link", " src=", "@import", "url(",
		"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
		" style=", // inline style attributes are refused by the CSP
	} {
		if strings.Contains(page, banned) {
			t.Errorf("the page contains %q", banned)
		}
	}
	if m := regexp.MustCompile(`<[a-z]+[^>]*\son[a-z]+=`).FindString(page); m != "" {
		t.Errorf("the page has an inline event handler (refused by the CSP): %s", m)
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "/") || strings.HasPrefix(m[1], "//") {
			t.Errorf("the page links outside this server: %s", m[1])
		}
	}
}

// consoleFetch matches every call the page makes: fetch('path' or `path`,
// req('METHOD' ...) or {...req('METHOD' ...)}.
var consoleFetch = regexp.MustCompile("fetch\\(\\s*(?:'([^']*)'|`([^`]*)`)\\s*,\\s*(?:\\{\\s*\\.\\.\\.)?req\\(\\s*'([A-Z]+)'")

// TestConsoleCallsOnlyTheContract checks every fetch of the page against the
// contract's operations (plus the two admin controls the page uses), and that
// the page covers the operations it promises.
func TestConsoleCallsOnlyTheContract(t *testing.T) {
	page := string(consolePage)
	calls := consoleFetch.FindAllStringSubmatch(page, -1)
	if n := strings.Count(page, "fetch("); n != len(calls) {
		t.Fatalf("the page has %d fetch( calls, %d of them in the checked form fetch('path', req('METHOD'...))", n, len(calls))
	}
	ops := spec.Strict().Operations
	used := map[string]bool{}
	for _, c := range calls {
		path, method := c[1]+c[2], c[3]
		path, _, _ = strings.Cut(path, "?")
		if consoleAdminCalls[method+" "+path] {
			used[method+" "+path] = true
			continue
		}
		i := slices.IndexFunc(ops, func(op spec.Operation) bool {
			return strings.EqualFold(op.Method, method) && samePath(path, op.Path)
		})
		if i < 0 {
			t.Errorf("the page calls %s %s, which is not an operation of the contract", method, c[1]+c[2])
			continue
		}
		used[ops[i].ID] = true
	}
	for _, want := range []string{
		"listDatasets", "createDataset", "uploadDatasetFiles", "deleteDataset",
		"listModels", "createModel", "deleteModel",
		"listConversations", "createConversation", "listMessages", "runInference",
		"listEvaluations", "createEvaluation", "startEvaluation", "deleteEvaluation", "runRagasEvaluation",
		"POST /admin/advance", "POST /admin/reset", "GET /admin/requests", "DELETE /admin/requests", "GET /admin/account",
	} {
		if !used[want] {
			t.Errorf("the page does not call %s", want)
		}
	}
}

// consoleAdminCalls are the calls outside the contract the page may make.
var consoleAdminCalls = map[string]bool{
	"POST /admin/advance": true, "POST /admin/reset": true, "GET /admin/account": true,
	"GET /admin/requests": true, "DELETE /admin/requests": true,
}

// TestConsoleHasNoKey keeps keys out of the page: it calls nothing until a
// key is entered, and offers the development key only when the server says
// it runs with it.
func TestConsoleHasNoKey(t *testing.T) {
	if strings.Contains(string(consolePage), DevKey) {
		t.Errorf("the page hard-codes the development key %q", DevKey)
	}
	ts := newTestServer(t)
	_, body := getConsole(t, ts, http.MethodGet)
	if !strings.Contains(string(body), devKeyMarker) {
		t.Error("with configured keys, the page's development-key tag must stay empty")
	}
}

// samePath reports whether a page path, whose ${...} segments are values,
// addresses the contract path pattern, whose {name} segments are parameters.
func samePath(page, pattern string) bool {
	ps, qs := strings.Split(page, "/"), strings.Split(pattern, "/")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		value := strings.HasPrefix(ps[i], "${") && strings.HasSuffix(ps[i], "}")
		param := strings.HasPrefix(qs[i], "{") && strings.HasSuffix(qs[i], "}")
		if value != param || (!value && ps[i] != qs[i]) {
			return false
		}
	}
	return true
}

func TestConsoleSamePath(t *testing.T) {
	cases := []struct {
		page, pattern string
		want          bool
	}{
		{"/api/v1/user/model", "/api/v1/user/model", true},
		{"/api/v1/user/model/${enc(m.id)}", "/api/v1/user/model/{model_id}", true},
		{"/api/v1/evaluations/check-name", "/api/v1/evaluations/{evaluation_id}", false},
		{"/api/v1/evaluations/${id}", "/api/v1/evaluations/check-name", false},
		{"/api/v1/evaluations/${id}/start", "/api/v1/evaluations/{evaluation_id}/run-ragas", false},
		{"/api/v1/user/model/${id}/x", "/api/v1/user/model/{model_id}", false},
	}
	for _, c := range cases {
		if got := samePath(c.page, c.pattern); got != c.want {
			t.Errorf("samePath(%q, %q) = %v, want %v", c.page, c.pattern, got, c.want)
		}
	}
}

func TestFaviconIsQuietlyAbsent(t *testing.T) {
	ts := newTestServer(t, withoutFixtures())
	res, err := ts.hs.Client().Get(ts.url + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("status: got %d, want 204", res.StatusCode)
	}
}
