package mockserver

import (
	"net/http"

	"contractkit/mockserver/apierr"
)

// health answers load balancers and CI wait loops; it needs no key.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "use GET"))
		return
	}
	apierr.WriteData(w, map[string]string{"status": "ok"})
}
