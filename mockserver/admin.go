package mockserver

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"contractkit/mockserver/apierr"
)

// admin serves the controls outside /api/v1, guarded by the same keys and
// acting on the caller's own account only:
//
//	POST /admin/reset            empty the account and preload the fixtures again (same ids as before)
//	GET  /admin/state            the account's whole state
//	POST /admin/advance?by=30s   move the account's clock forward (no "by": finish everything now)
//	GET  /admin/account          which account the key opens (the console shows it), and whether --open-keys opened it
//	GET  /admin/requests         the account's request journal (journal.go; listRequests below)
//	DELETE /admin/requests       empty the account's request journal
//	POST /admin/seed             load records into the account (seed.go)
//	/admin/overrides             answers forced per account (overrideadmin.go)
func (s *Server) admin(w http.ResponseWriter, r *http.Request) {
	account, err := s.authenticate(r)
	if err != nil {
		apierr.Write(w, s.log, err)
		return
	}
	route := r.Method + " " + r.URL.Path
	switch route {
	case "POST /admin/reset":
		s.overrides.clear(account) // a test's steering ends with its account
		a := s.store.Reset(account)
		if err := s.preload(account, a); err != nil {
			apierr.Write(w, s.log, err)
			return
		}
		apierr.WriteData(w, map[string]string{"message": "Account reset"})
	case "GET /admin/state":
		apierr.WriteData(w, s.store.Account(account).Dump())
	case "POST /admin/advance":
		a := s.store.Account(account)
		var by time.Duration
		if v := r.URL.Query().Get("by"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 || d > 365*24*time.Hour {
				apierr.Write(w, s.log, apierr.New(apierr.Invalid, "by: a positive duration such as 30s or 5m, at most a year"))
				return
			}
			a.Advance(d)
			by = d
		} else {
			by = a.FinishAll()
		}
		apierr.WriteData(w, map[string]string{"message": "Clock advanced", "advanced_by": by.String(), "clock_offset": a.Clock().Offset().String()})
	case "GET /admin/account":
		// open: the key opened it on first use (--open-keys), and which
		// pattern it matched.
		info := map[string]any{"account": account, "open": false}
		if p := s.accountInfo(account).pattern; p != "" {
			info["open"], info["pattern"] = true, p
		}
		apierr.WriteData(w, info)
	case "GET /admin/requests":
		s.listRequests(w, r, account)
	case "POST /admin/seed":
		s.seed(w, r, account)
	case "DELETE /admin/requests":
		n := s.journal.clear(account)
		apierr.WriteData(w, map[string]any{"message": "Journal cleared", "removed": n})
	default:
		if r.URL.Path == "/admin/overrides" || strings.HasPrefix(r.URL.Path, "/admin/overrides/") {
			s.overridesAdmin(w, r, account)
			return
		}
		switch r.URL.Path {
		case "/admin/reset", "/admin/state", "/admin/advance", "/admin/requests", "/admin/account", "/admin/seed":
			apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "Method %s is not allowed on %s", r.Method, r.URL.Path))
		default:
			apierr.Write(w, s.log, apierr.New(apierr.NotFound, "No such admin endpoint: %s", r.URL.Path))
		}
	}
}

// listRequests answers GET /admin/requests: the caller's journal, oldest
// first, filtered by ?method=, ?path= (a prefix), ?status= (404 or 4xx) and
// ?since= (ids above it, for polling). CORS preflights, orphans included,
// are listed with ?preflight=true (or ?method=OPTIONS): an E2E test asserts
// on what the app sent, and a preflight is the browser's.
func (s *Server) listRequests(w http.ResponseWriter, r *http.Request, account string) {
	s.journalOrphans(s.cfg.Clock.Now()) // preflights whose call never came, as of now
	q := r.URL.Query()
	method := strings.ToUpper(q.Get("method"))
	path := q.Get("path")
	status, err := statusFilter(q.Get("status"))
	if err != nil {
		apierr.Write(w, s.log, err)
		return
	}
	withPreflights := method == http.MethodOptions
	switch v := q.Get("preflight"); v {
	case "", "false":
	case "true":
		withPreflights = true
	default:
		apierr.Write(w, s.log, apierr.New(apierr.Invalid, "preflight: true or false"))
		return
	}
	var since int64
	if v := q.Get("since"); v != "" {
		if since, err = strconv.ParseInt(v, 10, 64); err != nil || since < 0 {
			apierr.Write(w, s.log, apierr.New(apierr.Invalid, "since: a non-negative entry id"))
			return
		}
	}
	entries := s.journal.list(account, func(e *journalEntry) bool {
		return e.ID > since && (method == "" || e.Method == method) && (withPreflights || !e.Preflight) &&
			strings.HasPrefix(e.Path, path) && status(e.Status)
	})
	out := make([]journalEntry, len(entries))
	for i, e := range entries {
		out[i] = *e
		out[i].Curl = curlCommand(e)
		out[i].Response.Body = e.Response.text()
		if st := e.Response.Stream; st != nil {
			out[i].Response.Stream = st.expanded() // a copy: the entry keeps its compact form
			out[i].Response.Body = strings.Join(out[i].Response.Stream.Chunks, "")
		}
	}
	apierr.WriteData(w, out)
}

// statusFilter reads "404" (that status) or "4xx" (that class).
func statusFilter(v string) (func(int) bool, error) {
	if v == "" {
		return func(int) bool { return true }, nil
	}
	bad := apierr.New(apierr.Invalid, "status: a status such as 404, or a class such as 4xx")
	if len(v) == 3 && strings.EqualFold(v[1:], "xx") && v[0] >= '1' && v[0] <= '5' {
		class := int(v[0]-'0') * 100
		return func(s int) bool { return s >= class && s < class+100 }, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 || n > 599 {
		return nil, bad
	}
	return func(s int) bool { return s == n }, nil
}
