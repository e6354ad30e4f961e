package mockserver

import (
	"encoding/json"
	"io"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"contractkit/spec"
)

// getConsole requests the console without a key.
func getConsole(t *testing.T, ts *testServer, method string) (*http.Response, []byte) {
	t.Helper()
	return getConsolePath(t, ts, method, "/")
}

// getConsolePath requests a path of the console without a key.
func getConsolePath(t *testing.T, ts *testServer, method, p string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+p, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ts.hs.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, p, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, p, err)
	}
	return resp, body
}

// consoleSource is the page and every file it loads, as one text, for the
// checks that look at all of the console.
func consoleSource() string {
	var b strings.Builder
	b.Write(consolePage)
	names := make([]string, 0, len(consoleFiles))
	for name := range consoleFiles {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		b.WriteString("\n/* " + name + " */\n")
		b.Write(consoleFiles[name].body)
	}
	return b.String()
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
	// Every file the page loads is served, with its type, without a key.
	loaded := regexp.MustCompile(`(?:href|src)="(/console/[^"]+)"`).FindAllStringSubmatch(string(body), -1)
	if len(loaded) < 2 {
		t.Fatalf("the page loads %d files from /console/, want its stylesheet and its script", len(loaded))
	}
	for _, m := range loaded {
		resp, b := getConsolePath(t, ts, http.MethodGet, m[1])
		want := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}[path.Ext(m[1])]
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != want || len(b) == 0 {
			t.Errorf("GET %s: status %d, Content-Type %q, %d bytes; want 200, %q", m[1], resp.StatusCode, resp.Header.Get("Content-Type"), len(b), want)
		}
	}
	// The modules import each other by relative names that are served too.
	for name, f := range consoleFiles {
		for _, m := range regexp.MustCompile(`from '\./([^']+)'`).FindAllStringSubmatch(string(f.body), -1) {
			if _, ok := consoleFiles[m[1]]; !ok {
				t.Errorf("%s imports ./%s, which is not a file of the console", name, m[1])
			}
		}
	}
	page := consoleSource()
	for _, want := range []string{
		"/api/v1/user/dataset", "/api/v1/user/dataset/upload", "/api/v1/user/model",
		"/api/v1/user/conversations", "/api/v1/user/inference", "/api/v1/evaluations",
		"/admin/advance", "/admin/reset", "/admin/requests", "/admin/account", devKeyMarker, "sessionStorage", "getReader()",
		"AbortController", "[DONE]", "X-Mock-Console", "failures",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the console does not contain %q", want)
		}
	}
}

func TestConsoleAssetsRefuseOtherNames(t *testing.T) {
	ts := newTestServer(t)
	for _, p := range []string{"/console/", "/console/nope.js", "/console/../console.go", "/console/console.html", "/console/%2e%2e/server.go"} {
		resp, body := getConsolePath(t, ts, http.MethodGet, p)
		if resp.StatusCode != http.StatusNotFound || mediaType(resp.Header.Get("Content-Type")) != "application/json" {
			t.Errorf("GET %s: status %d (%s), want the 404 envelope", p, resp.StatusCode, snippet(body))
		}
	}
	resp, _ := getConsolePath(t, ts, http.MethodPost, "/console/main.js")
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /console/main.js: status %d, want 405", resp.StatusCode)
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
	for _, d := range []string{"default-src", "script-src", "style-src"} {
		if got := directives[d]; got != "'self'" {
			t.Errorf("CSP %s %q, want 'self' only", d, got)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "*") || strings.Contains(csp, "data:") || strings.Contains(csp, "http") {
		t.Errorf("CSP allows more than 'self': %s", csp)
	}
	// Inline code would be refused by this policy: the page has none.
	if regexp.MustCompile(`<script[^>]*>\s*[^<\s]|<style`).Match(body) {
		t.Error("the page has an inline <script> or <style>, which the CSP refuses")
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

// TestConsoleIsSelfContained keeps the console loadable without a network
// and safe with server data: no external address, no HTML built from strings.
func TestConsoleIsSelfContained(t *testing.T) {
	page := consoleSource()
	for _, banned := range []string{
		"http://", "https://", "//cdn", "@import", "url(",
		"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
		" style=", // inline style attributes are refused by the CSP
	} {
		if strings.Contains(page, banned) {
			t.Errorf("the console contains %q", banned)
		}
	}
	if m := regexp.MustCompile(`<[a-z]+[^>]*\son[a-z]+=`).FindString(page); m != "" {
		t.Errorf("the page has an inline event handler (refused by the CSP): %s", m)
	}
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "/") || strings.HasPrefix(m[1], "//") {
			t.Errorf("the page links outside this server: %s", m[1])
		}
	}
}

// consoleCall matches every call the console makes: call('path' or `path`,
// req('METHOD' ...) or {...req('METHOD' ...)}.
var consoleCall = regexp.MustCompile("\\bcall\\(\\s*(?:'([^']*)'|`([^`]*)`)\\s*,\\s*(?:\\{\\s*\\.\\.\\.)?req\\(\\s*'([A-Z]+)'")

// TestConsoleCallsOnlyTheContract checks every call of the console against
// the contract's operations (plus the admin controls the console uses), and
// that the console covers the operations it promises. Every request goes
// through call() in http.js, its one fetch.
func TestConsoleCallsOnlyTheContract(t *testing.T) {
	page := consoleSource()
	if n := strings.Count(page, "fetch("); n != 1 || !strings.Contains(string(consoleFiles["http.js"].body), "window.fetch(") {
		t.Fatalf("the console has %d fetch( calls; want the one in http.js's call()", n)
	}
	calls := consoleCall.FindAllStringSubmatch(page, -1)
	if n := len(regexp.MustCompile(`\bcall\(`).FindAllString(page, -1)) - 1; n != len(calls) { // minus call's own definition
		t.Fatalf("the console has %d call( uses, %d of them in the checked form call('path', req('METHOD'...))", n, len(calls))
	}
	ops := spec.Strict().Operations
	used := map[string]bool{}
	for _, c := range calls {
		path, method := c[1]+c[2], c[3]
		path, _, _ = strings.Cut(path, "?")
		if admin := method + " " + consolePathValue.ReplaceAllString(path, "{id}"); consoleAdminCalls[admin] {
			used[admin] = true
			continue
		}
		i := slices.IndexFunc(ops, func(op spec.Operation) bool {
			return strings.EqualFold(op.Method, method) && samePath(path, op.Path)
		})
		if i < 0 {
			t.Errorf("the console calls %s %s, which is not an operation of the contract", method, c[1]+c[2])
			continue
		}
		used[ops[i].ID] = true
	}
	for _, want := range []string{
		"listDatasets", "createDataset", "uploadDatasetFiles", "deleteDataset",
		"listModels", "createModel", "deleteModel",
		"listConversations", "createConversation", "listMessages", "runInference",
		"listEvaluations", "getEvaluation", "createEvaluation", "startEvaluation", "deleteEvaluation", "runRagasEvaluation",
		"POST /admin/advance", "POST /admin/reset", "GET /admin/requests", "DELETE /admin/requests", "GET /admin/account",
		"GET /openapi.json", "GET /admin/overrides", "POST /admin/overrides", "DELETE /admin/overrides", "DELETE /admin/overrides/{id}",
	} {
		if !used[want] {
			t.Errorf("the console does not call %s", want)
		}
	}
}

// consoleAdminCalls are the calls outside the contract the console may make.
var consoleAdminCalls = map[string]bool{
	"POST /admin/advance": true, "POST /admin/reset": true, "GET /admin/account": true,
	"GET /admin/requests": true, "DELETE /admin/requests": true, "GET /openapi.json": true,
	"GET /admin/overrides": true, "POST /admin/overrides": true, "DELETE /admin/overrides": true, "DELETE /admin/overrides/{id}": true,
}

// consolePathValue is a ${...} value in a path of the console's source.
var consolePathValue = regexp.MustCompile(`\$\{[^}]*\}`)

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
