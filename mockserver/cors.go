package mockserver

import "net/http"

// cors lets a browser page on any origin call the mock and read its streams
// and rate-limit headers. Preflights are answered before authentication,
// because browsers send them without credentials.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Prefer, X-Mock-Delay, X-Mock-Stream-Fault")
	h.Set("Access-Control-Expose-Headers", "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, Content-Type, X-Mock-Override, X-Mock-Stream-Fault")
	h.Set("Access-Control-Max-Age", "600")
}
