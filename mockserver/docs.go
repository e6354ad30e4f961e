package mockserver

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"contractkit/mockserver/apierr"

	"contractkit/internal/textcut"
)

// The docs page (GET /docs) renders the contract with Swagger UI, whose
// "Try it out" calls this mock. Swagger UI's files come from the npm package
// swagger-ui-dist pinned in tools/package.json, copied into docs/ by
// `make docs-assets` and embedded, so the page needs no network;
// docs/swagger-ui-dist.version records the copied version (a test compares
// it with the pin). docs.html and docs.js are ours.
//
//go:embed docs
var docsFS embed.FS

// docsAssets are the files served under /docs/, with their types.
var docsAssets = map[string]string{
	"swagger-ui-bundle.js": "text/javascript; charset=utf-8",
	"swagger-ui.css":       "text/css; charset=utf-8",
	"docs.js":              "text/javascript; charset=utf-8",
	"LICENSE":              "text/plain; charset=utf-8",
	"NOTICE":               "text/plain; charset=utf-8",
}

// docsCSP allows the page nothing beyond its own origin, except what Swagger
// UI truly needs: img-src data:, because swagger-ui.css draws its icons as
// data: SVG images. Scripts and styles are files of this server (no inline
// code); connect-src 'self' lets "Try it out" and the contract load reach
// this mock only.
var docsCSP = strings.Join([]string{
	"default-src 'self'",
	"script-src 'self'",
	"style-src 'self'",
	"img-src 'self' data:",
	"connect-src 'self'",
	"object-src 'none'",
	"base-uri 'none'",
	"form-action 'self'",
	"frame-ancestors 'none'",
}, "; ")

// isDocsPath reports whether the docs handler serves p.
func isDocsPath(p string) bool {
	return p == "/docs" || strings.HasPrefix(p, "/docs/") || p == "/openapi.json" || p == "/openapi.yaml"
}

// docs serves /docs, its assets and the contract (/openapi.yaml as YAML a
// browser shows rather than downloads, /openapi.json as JSON); none needs
// a key.
func (s *Server) docs(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "use GET"))
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	var body []byte
	switch p := r.URL.Path; {
	case p == "/openapi.yaml":
		// text/yaml with inline: Chromium shows it as text (application/yaml
		// would be downloaded).
		h.Set("Content-Type", "text/yaml; charset=utf-8")
		h.Set("Content-Disposition", `inline; filename="openapi.yaml"`)
		body = s.contract.Raw
	case p == "/openapi.json":
		b, err := s.contractJSON()
		if err != nil {
			apierr.Write(w, s.log, err)
			return
		}
		h.Set("Content-Type", "application/json; charset=utf-8")
		body = b
	case p == "/docs/openapi.json":
		b, err := s.docsContract(r)
		if err != nil {
			apierr.Write(w, s.log, err)
			return
		}
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store") // per account and per address
		body = b
	case p == "/docs" || p == "/docs/":
		page, err := docsFS.ReadFile("docs/docs.html")
		if err != nil {
			apierr.Write(w, s.log, err)
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", docsCSP)
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		body = s.withDevKey(page)
	default:
		name := strings.TrimPrefix(p, "/docs/")
		ctype, ok := docsAssets[name]
		b, err := docsFS.ReadFile(path.Join("docs", name))
		if !ok || err != nil {
			apierr.Write(w, s.log, apierr.New(apierr.NotFound, "No such file: %s", textcut.Shorten(p, 80)))
			return
		}
		h.Set("Content-Type", ctype)
		h.Set("Cache-Control", "public, max-age=3600")
		body = b
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// devKeyMarker is the tag of the console and docs pages that tells them
// whether the mock runs with its generated development key; withDevKey
// fills it in. A configured key is never written into a page.
const devKeyMarker = `<meta name="mock-dev-key" content="">`

func (s *Server) withDevKey(page []byte) []byte {
	if len(s.cfg.Keys) != 1 || s.cfg.Keys[0] != DevKey {
		return page
	}
	return bytes.Replace(page, []byte(devKeyMarker), []byte(`<meta name="mock-dev-key" content="`+DevKey+`">`), 1)
}

var (
	contractJSONOnce sync.Once
	contractJSONData []byte
	contractJSONErr  error
)

// contractJSON converts the contract to JSON once, keeping the YAML's key
// order (the docs list paths in the contract's order).
func (s *Server) contractJSON() ([]byte, error) {
	contractJSONOnce.Do(func() {
		var doc yaml.Node
		if err := yaml.Unmarshal(s.contract.Raw, &doc); err != nil {
			contractJSONErr = err
			return
		}
		var buf bytes.Buffer
		if err := nodeJSON(&buf, &doc); err != nil {
			contractJSONErr = err
			return
		}
		contractJSONData = buf.Bytes()
	})
	return contractJSONData, contractJSONErr
}

// nodeJSON writes a YAML node as JSON, mappings in document order.
func nodeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("contract: %d documents", len(n.Content))
		}
		return nodeJSON(buf, n.Content[0])
	case yaml.AliasNode:
		return nodeJSON(buf, n.Alias)
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			buf.Write(k)
			buf.WriteByte(':')
			if err := nodeJSON(buf, n.Content[i+1]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := nodeJSON(buf, c); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("contract line %d: %w", n.Line, err)
		}
		buf.Write(b)
	default:
		return fmt.Errorf("contract line %d: unexpected YAML node", n.Line)
	}
	return nil
}
