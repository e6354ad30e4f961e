package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"contractkit/spec"
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

// TestDocsContractWorksAsShipped: the contract the docs page renders names
// this mock's address as its server, and every example id "Try it out"
// sends (path and query parameters, request body examples) is a record of
// the account in a fresh server with the default fixtures; the rest is the
// contract as written.
func TestDocsContractWorksAsShipped(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct{ name, key, account string }{
		{"no key: the first key's records", "", testKey1},
		{"key 1", testKey1, testKey1},
		{"key 2", testKey2, testKey2},
	} {
		key := tc.key
		t.Run(tc.name, func(t *testing.T) {
			c := ts.client(t, tc.account)
			req, _ := http.NewRequest(http.MethodGet, ts.url+"/docs/openapi.json", nil)
			if key != "" {
				req.Header.Set("Authorization", "Bearer "+key)
			}
			resp, err := ts.hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || bytes.Contains(body, []byte("docs-slot")) {
				t.Fatalf("GET /docs/openapi.json: %d, unfilled slots: %v", resp.StatusCode, bytes.Contains(body, []byte("docs-slot")))
			}
			var doc map[string]any
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber() // ids of the second account print as numbers, not 1e+09
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			server := doc["servers"].([]any)[0].(map[string]any)
			if server["url"] != ts.url || strings.Contains(fmt.Sprint(server["description"]), "{") {
				t.Errorf("server got %v, want %s and a description without a {variable}", server, ts.url)
			}
			checked := docsExampleCalls(t, c, doc)
			if checked < 8 {
				t.Errorf("checked %d example calls, want one per operation with an id", checked)
			}
			assertDocsDiffersOnlyInSlots(t, ts, doc)
		})
	}
}

// docsExampleCalls GETs every operation whose path has parameters with the
// parameters' examples, and every id a request body example carries, by
// the GET of its resource; each must answer 200 (checked against the
// contract by c). It returns how many calls it made.
func docsExampleCalls(t *testing.T, c *apiClient, doc map[string]any) int {
	t.Helper()
	params := doc["components"].(map[string]any)["parameters"].(map[string]any)
	examples := doc["components"].(map[string]any)["examples"].(map[string]any)
	byID := map[string]string{ // the GET of each record, by its id field
		"model_id": "/api/v1/user/model/", "dataset_id": "/api/v1/user/dataset/",
		"conversation_id": "/api/v1/user/conversations/%s/messages", "evaluation_id": "/api/v1/evaluations/",
	}
	n := 0
	for path, item := range doc["paths"].(map[string]any) {
		for method, v := range item.(map[string]any) {
			op, ok := v.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			var ps []any
			ps = append(ps, item.(map[string]any)["parameters"])
			ps = append(ps, op["parameters"])
			concrete, query := path, []string{}
			for _, list := range ps {
				l, _ := list.([]any)
				for _, p := range l {
					pm := p.(map[string]any)
					if ref, ok := pm["$ref"].(string); ok {
						pm = params[strings.TrimPrefix(ref, "#/components/parameters/")].(map[string]any)
					}
					name := pm["name"].(string)
					ex, ok := pm["schema"].(map[string]any)["example"]
					if _, id := byID[name]; !id || !ok {
						continue
					}
					switch pm["in"] {
					case "path":
						concrete = strings.ReplaceAll(concrete, "{"+name+"}", fmt.Sprint(ex))
					case "query":
						query = append(query, name+"="+fmt.Sprint(ex))
					}
				}
			}
			if strings.EqualFold(method, "get") && (concrete != path || len(query) > 0) {
				u := concrete
				if len(query) > 0 {
					u += "?" + strings.Join(query, "&")
				}
				c.get(u).want(t, 200)
				n++
			}
			rb, _ := op["requestBody"].(map[string]any)
			content, _ := rb["content"].(map[string]any)
			for _, media := range content {
				exs, _ := media.(map[string]any)["examples"].(map[string]any)
				for _, ex := range exs {
					em := ex.(map[string]any)
					if ref, ok := em["$ref"].(string); ok {
						em = examples[strings.TrimPrefix(ref, "#/components/examples/")].(map[string]any)
					}
					value, _ := em["value"].(map[string]any)
					for field, get := range byID {
						if id, ok := value[field]; ok {
							c.get(recordPath(get, fmt.Sprint(id))).want(t, 200)
							n++
						}
					}
				}
			}
		}
	}
	return n
}

// assertDocsDiffersOnlyInSlots compares the docs' contract with
// /openapi.json: only the server and id examples may differ.
func assertDocsDiffersOnlyInSlots(t *testing.T, ts *testServer, docs map[string]any) {
	t.Helper()
	_, raw := getPath(t, ts, "/openapi.json")
	var want map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	var diffs []string
	differ := map[string][2]any{}
	var cmp func(path string, a, b any)
	cmp = func(path string, a, b any) {
		am, aok := a.(map[string]any)
		bm, bok := b.(map[string]any)
		if aok && bok && len(am) == len(bm) {
			for k := range am {
				cmp(path+"/"+k, am[k], bm[k])
			}
			return
		}
		as, aok := a.([]any)
		bs, bok := b.([]any)
		if aok && bok && len(as) == len(bs) {
			for i := range as {
				cmp(fmt.Sprintf("%s/%d", path, i), as[i], bs[i])
			}
			return
		}
		if !reflect.DeepEqual(a, b) {
			diffs = append(diffs, path)
			differ[path] = [2]any{a, b}
		}
	}
	cmp("", docs, want)
	folded := 0
	for _, d := range diffs {
		last := d[strings.LastIndex(d, "/")+1:]
		if last == "description" && d != "/info/description" && !strings.HasPrefix(d, "/servers/") {
			// A description with contract notes: its plain words, the notes folded.
			got, _ := differ[d][0].(string)
			orig, _ := differ[d][1].(string)
			lead, notes := spec.SplitNotes(orig)
			if want := lead + "\n\n<details class=\"contract-notes\">\n<summary>Contract notes</summary>\n\n" + notes + "\n\n</details>\n"; notes == "" || got != want {
				t.Errorf("the docs' description at %s is %q, want the contract's plain words, its notes folded: %q", d, got, want)
			}
			folded++
			continue
		}
		if !strings.HasPrefix(d, "/servers/") && !docsIDFields[last] && last != "example" && d != "/info/description" {
			t.Errorf("the docs' contract differs from the contract at %s", d)
		}
	}
	if folded < 100 {
		t.Errorf("%d descriptions have their contract notes folded, want every one that has notes", folded)
	}
	// The description opens with the introduction, and keeps the
	// contract's own, whole, folded below it.
	got := docs["info"].(map[string]any)["description"].(string)
	own := strings.TrimSpace(want["info"].(map[string]any)["description"].(string))
	intro, err := docsFS.ReadFile("docs/intro.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, strings.TrimSpace(string(intro))) || !strings.Contains(got, "<details>") || !strings.Contains(got, own) {
		t.Errorf("the docs' description does not open with docs/intro.md and keep the contract's description: %.200q", got)
	}
}

// recordPath is the GET of a record: prefix+id, or the %s of a pattern.
func recordPath(get, id string) string {
	if strings.Contains(get, "%s") {
		return fmt.Sprintf(get, id)
	}
	return get + id
}
