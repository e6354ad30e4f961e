package mockserver

import (
	"net/http"

	"contractkit/mockserver/apierr"
)

// openapi serves the contract the mock implements; it needs no key.
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "use GET"))
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(s.contract.Raw)
}
