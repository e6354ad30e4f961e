package mockserver

import (
	"net/http"
	"strings"
)

// corsHeaders are the request headers a preflight is always told it may
// send: the API's own and the mock's controls.
const corsHeaders = "Authorization, Content-Type, Accept, Prefer, X-Mock-Delay, X-Mock-Stream-Fault, X-Mock-Console"

// corsExposed are the answer headers a page on another origin may read.
const corsExposed = "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, Content-Type, X-Mock-Override, X-Mock-Stream-Fault, X-Mock-Unknown-Fields"

// corsMethods are the methods a preflight is told the page may use.
const corsMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"

// Bounds of the header list a preflight asks for that is echoed back.
const (
	maxAskedHeaders     = 64
	maxAskedHeadersSize = 2048
)

// cors lets a browser page on any origin call the mock and read its streams
// and its headers, with credentials too: an app written for a cookie
// backend sends `fetch(..., {credentials: 'include'})`, which the browser
// allows only with Access-Control-Allow-Credentials: true and the page's
// own origin echoed (never `*`, which the Fetch standard refuses with
// credentials; the mock reads no cookie, the key travels in Authorization).
// Preflights are answered before authentication, because browsers send
// them without credentials; they allow every header they ask for (the
// `sentry-trace`, `baggage`, `traceparent` and `X-Request-Id` that real
// apps add to every fetch), since the wildcard `*` would not cover
// Authorization (nor any header, with credentials), and a page's call to
// a private address (Chromium's Private Network Access) when asked.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Credentials", "true")
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", corsExposed)
	if isPreflight(r) {
		h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
		h.Set("Access-Control-Allow-Methods", corsMethods)
		h.Set("Access-Control-Allow-Headers", allowHeaders(r.Header.Get("Access-Control-Request-Headers")))
		h.Set("Access-Control-Max-Age", "600")
		if strings.EqualFold(r.Header.Get("Access-Control-Request-Private-Network"), "true") {
			h.Set("Access-Control-Allow-Private-Network", "true")
		}
	}
}

// isPreflight reports whether r is a CORS preflight.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// allowHeaders is the mock's own list plus the names a preflight asked for,
// when they are header names (tokens) within bounds; otherwise the mock's
// list alone, and the browser refuses the call for the name it lacks.
func allowHeaders(asked string) string {
	asked = strings.TrimSpace(asked)
	if asked == "" || len(asked) > maxAskedHeadersSize {
		return corsHeaders
	}
	names := strings.Split(asked, ",")
	if len(names) > maxAskedHeaders {
		return corsHeaders
	}
	for i, n := range names {
		n = strings.TrimSpace(n)
		if !isToken(n) {
			return corsHeaders
		}
		names[i] = n
	}
	return corsHeaders + ", " + strings.Join(names, ", ")
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2), the form
// of a header name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}
