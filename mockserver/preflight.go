package mockserver

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// A CORS preflight carries no key (browsers never send credentials on it),
// so it belongs to no account when it arrives. It is kept here until the
// call it prepares comes (same origin, method and URL), and recorded in that
// call's account journal just before it, marked as a preflight. A preflight
// no call follows (the browser refused the answer, or the page went away)
// is forgotten: the oldest go first, and none is kept past preflightTTL.

// Bounds of the preflights waiting for their call.
const (
	maxPendingPreflights = 256
	preflightTTL         = time.Minute
)

type pendingPreflight struct {
	key   string // origin, method and URL of the call it prepares
	at    time.Time
	entry *journalEntry
}

// preflights is the zero-value-ready list of preflights waiting for their
// call, oldest first.
type preflights struct {
	mu      sync.Mutex // guards pending
	pending []pendingPreflight
}

func preflightKey(origin, method, uri string) string {
	return origin + "\x00" + strings.ToUpper(method) + "\x00" + uri
}

// add keeps a preflight, dropping the oldest beyond the bound.
func (p *preflights) add(key string, at time.Time, e *journalEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.pending) >= maxPendingPreflights {
		p.pending = append(p.pending[:0], p.pending[len(p.pending)-maxPendingPreflights+1:]...)
	}
	p.pending = append(p.pending, pendingPreflight{key: key, at: at, entry: e})
}

// take returns the oldest preflight waiting for the call key, if one came
// within preflightTTL, and forgets it.
func (p *preflights) take(key string, now time.Time) *journalEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, pf := range p.pending {
		if pf.key == key && now.Sub(pf.at) <= preflightTTL {
			p.pending = append(p.pending[:i], p.pending[i+1:]...)
			return pf.entry
		}
	}
	return nil
}

// len is how many preflights are waiting.
func (p *preflights) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending)
}

// answerPreflight answers a CORS preflight (cors has set its headers) and,
// for a path of the API, keeps it for the journal of the call it prepares.
func (s *Server) answerPreflight(w http.ResponseWriter, r *http.Request, start time.Time) {
	w.WriteHeader(http.StatusNoContent)
	origin := r.Header.Get("Origin")
	if origin == "" || !strings.HasPrefix(r.URL.Path, "/api/v1/") {
		return
	}
	now := s.cfg.Clock.Now()
	e := &journalEntry{
		Time: now.UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Status: http.StatusNoContent, DurationMS: float64(time.Since(start).Microseconds()) / 1000,
		Request:  journalMessage{Headers: maskHeaders(r.Header)},
		Response: journalMessage{Headers: w.Header().Clone()},
		host:     r.Host, tls: r.TLS != nil,
		Preflight: true,
	}
	s.preflights.add(preflightKey(origin, r.Header.Get("Access-Control-Request-Method"), r.URL.RequestURI()), now, e)
}

// claimPreflight records in account's journal the preflight that prepared
// r, if one is waiting.
func (s *Server) claimPreflight(r *http.Request, account string) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	if e := s.preflights.take(preflightKey(origin, r.Method, r.URL.RequestURI()), s.cfg.Clock.Now()); e != nil {
		s.journal.add(account, e)
	}
}
