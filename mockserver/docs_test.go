package mockserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func getPath(t *testing.T, ts *testServer, path string) (*http.Response, []byte) {
	t.Helper()
	resp, err := ts.hs.Client().Get(ts.url + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp, body
}

func TestDocsPageIsServedWithoutAKey(t *testing.T) {
	ts := newTestServer(t)
	resp, body := getPath(t, ts, "/docs")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /docs: %d %s, want 200 text/html", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") || strings.Contains(csp, "*") {
		t.Errorf("CSP %q allows more than this origin", csp)
	}
	if bytes.Contains(body, []byte("<script>")) || bytes.Contains(body, []byte("<style>")) || bytes.Contains(body, []byte("//cdn")) {
		t.Error("the docs page has inline code or a CDN address; its CSP allows neither")
	}
	if bytes.Contains(body, []byte(testKey1)) || bytes.Contains(body, []byte(DevKey)) {
		t.Error("the docs page names a key although the mock runs with configured keys")
	}
	for _, asset := range []string{"/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css", "/docs/docs.js"} {
		if !bytes.Contains(body, []byte(`"`+asset+`"`)) {
			t.Errorf("the page does not load %s", asset)
		}
		resp, b := getPath(t, ts, asset)
		if resp.StatusCode != 200 || len(b) == 0 {
			t.Errorf("GET %s: status %d, %d bytes", asset, resp.StatusCode, len(b))
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") && !strings.HasPrefix(ct, "text/css") {
			t.Errorf("GET %s: Content-Type %q", asset, ct)
		}
	}
	if resp, _ := getPath(t, ts, "/docs/../server.go"); resp.StatusCode != 404 {
		t.Errorf("GET /docs/../server.go: status %d, want 404", resp.StatusCode)
	}
	if resp, _ := getPath(t, ts, "/docs/swagger-ui-dist.version"); resp.StatusCode != 404 {
		t.Errorf("GET /docs/swagger-ui-dist.version: status %d, want 404 (only listed assets are served)", resp.StatusCode)
	}
}

func TestDocsOfferTheDevelopmentKeyOnlyWhenItIsInUse(t *testing.T) {
	ts := newTestServer(t, withConfig(func(c *Config) { c.Keys = nil }))
	for _, p := range []string{"/docs", "/"} {
		_, body := getPath(t, ts, p)
		if !bytes.Contains(body, []byte(`<meta name="mock-dev-key" content="`+DevKey+`">`)) {
			t.Errorf("GET %s with the development key: the page is not told the key", p)
		}
	}
}

func TestOpenAPIJSONEqualsTheYAML(t *testing.T) {
	ts := newTestServer(t)
	resp, jsonBody := getPath(t, ts, "/openapi.json")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /openapi.json: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var fromJSON, fromYAML any
	if err := json.Unmarshal(jsonBody, &fromJSON); err != nil {
		t.Fatalf("/openapi.json does not parse: %v", err)
	}
	resp, yamlBody := getPath(t, ts, "/openapi.yaml")
	if got := resp.Header.Get("Content-Type"); got != "text/yaml; charset=utf-8" {
		t.Errorf("GET /openapi.yaml: Content-Type %q, want text/yaml; charset=utf-8 (a browser shows it)", got)
	}
	if got := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(got, "inline") {
		t.Errorf("GET /openapi.yaml: Content-Disposition %q, want inline", got)
	}
	if err := yaml.Unmarshal(yamlBody, &fromYAML); err != nil {
		t.Fatalf("/openapi.yaml does not parse: %v", err)
	}
	// Through JSON once, so both sides have JSON's types (float64 numbers).
	b, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, want) {
		t.Error("/openapi.json differs from /openapi.yaml")
	}
	// The paths keep the contract's order.
	first := strings.Index(string(jsonBody), `"/api/v1/`)
	if first < 0 || !strings.HasPrefix(string(jsonBody[first:]), `"`+firstPath(t, yamlBody)+`"`) {
		t.Errorf("/openapi.json does not list the paths in the contract's order")
	}
}

func firstPath(t *testing.T, y []byte) string {
	t.Helper()
	for _, l := range strings.Split(string(y), "\n") {
		if strings.HasPrefix(l, "  /api/v1/") {
			return strings.TrimSuffix(strings.TrimSpace(l), ":")
		}
	}
	t.Fatal("no path in the contract")
	return ""
}

// TestDocsAssetsMatchThePin keeps the committed Swagger UI in step with
// tools/package.json: bump the pin, run make docs-assets.
func TestDocsAssetsMatchThePin(t *testing.T) {
	var pkg struct {
		Dev map[string]string `json:"devDependencies"`
	}
	b, err := os.ReadFile("../tools/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	pin := pkg.Dev["swagger-ui-dist"]
	rec, err := docsFS.ReadFile("docs/swagger-ui-dist.version")
	if err != nil {
		t.Fatal(err)
	}
	if pin == "" || strings.TrimSpace(string(rec)) != pin {
		t.Fatalf("mockserver/docs holds swagger-ui-dist %q, tools/package.json pins %q: run make docs-assets", strings.TrimSpace(string(rec)), pin)
	}
	// With the tools installed, the copies must be the package's files.
	dist := filepath.Join("..", "tools", "node_modules", "swagger-ui-dist")
	installed, err := os.ReadFile(filepath.Join(dist, "package.json"))
	if err != nil {
		t.Logf("tools not installed (%v): compared the recorded version only", err)
		return
	}
	var ver struct{ Version string }
	if json.Unmarshal(installed, &ver) != nil || ver.Version != pin {
		t.Logf("installed swagger-ui-dist %q is not the pin %q (run make tools): compared the recorded version only", ver.Version, pin)
		return
	}
	for name := range docsAssets {
		if name == "docs.js" {
			continue
		}
		want, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := docsFS.ReadFile("docs/" + name)
		if !bytes.Equal(got, want) {
			t.Errorf("mockserver/docs/%s differs from swagger-ui-dist %s: run make docs-assets", name, pin)
		}
	}
}
