package mockserver

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"contractkit/mockserver/apierr"
)

// consolePage is the browser console served at GET /: one self-contained page
// (inline CSS and JavaScript, no external resources) that calls this server's
// API with the key typed into it. The page itself needs no key.
//
//go:embed console.html
var consolePage []byte

// consoleCSP lets the page load nothing but its own origin, and run only its
// own inline script and style, pinned by their SHA-256 hashes: an edit of the
// page changes the hashes with it, at start.
var consoleCSP = contentSecurityPolicy(consolePage)

var (
	inlineScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	inlineStyle  = regexp.MustCompile(`(?s)<style>(.*?)</style>`)
)

// contentSecurityPolicy builds the policy of page from its inline <script>
// and <style> blocks (written without attributes).
func contentSecurityPolicy(page []byte) string {
	return strings.Join([]string{
		"default-src 'self'",
		"script-src " + inlineHashes(inlineScript, page),
		"style-src " + inlineHashes(inlineStyle, page),
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; ")
}

func inlineHashes(re *regexp.Regexp, page []byte) string {
	var out []string
	for _, m := range re.FindAllSubmatch(page, -1) {
		sum := sha256.Sum256(m[1])
		out = append(out, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	if len(out) == 0 {
		return "'none'"
	}
	return strings.Join(out, " ")
}

// console serves the page; it needs no key (the page asks for one). When the
// mock runs with its generated development key, the page is told so and
// offers it (withDevKey).
func (s *Server) console(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "use GET"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", consoleCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	page := s.withDevKey(consolePage)
	h.Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(page)
}
