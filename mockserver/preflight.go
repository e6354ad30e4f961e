package mockserver

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A CORS preflight carries no key (browsers never send credentials on it),
// so it belongs to no account when it arrives. It is kept here until the
// call it prepares comes (same origin, method and URL, within
// preflightWindow), and recorded in that call's account journal just before
// it, marked as a preflight.
//
// A preflight no call follows within the window is an orphan: the browser
// refused the mock's answer (a CORS failure, which leaves the page's fetch
// with nothing but "Failed to fetch"), or the page went away. It is
// recorded as such ("orphan", with the probable reason), never given to a
// later call of the same URL, in the journal of the account that last
// called from its origin — or, from an origin no call has come from yet (the
// app's very first call failed), of the first configured key's account, the
// development key's with `make run`. Orphans are found when the journal is
// read and when calls and preflights come, by the injected clock.

// Bounds of the preflights waiting for their call, and of the origins
// remembered.
const (
	maxPendingPreflights = 256
	// preflightWindow is how long a preflight waits for its call: a browser
	// sends the call as soon as the preflight's answer allows it.
	preflightWindow = 5 * time.Second
	maxOrigins      = 256
)

type pendingPreflight struct {
	key    string // origin, method and URL of the call it prepares
	origin string
	at     time.Time
	entry  *journalEntry
}

// preflights is the zero-value-ready list of preflights waiting for their
// call, oldest first, and the account each origin last called from.
type preflights struct {
	// waiting is len(pending), read without the lock: a call when no
	// preflight waits (most calls: a server's, a test's, a same-origin
	// page's) takes no lock for them.
	waiting atomic.Int64

	mu      sync.Mutex // guards the fields below
	pending []pendingPreflight
	// origins maps an Origin to the account that last called from it;
	// order is their insertion order, to forget the oldest past maxOrigins.
	origins map[string]string
	order   []string
}

func preflightKey(origin, method, uri string) string {
	return origin + "\x00" + strings.ToUpper(method) + "\x00" + uri
}

// add keeps a preflight; past the bound the oldest leave, as orphans.
func (p *preflights) add(pf pendingPreflight) (orphans []pendingPreflight) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.pending) - maxPendingPreflights + 1; n > 0 {
		orphans = slices.Clone(p.pending[:n])
		p.pending = slices.Delete(p.pending, 0, n)
	}
	p.pending = append(p.pending, pf)
	p.waiting.Store(int64(len(p.pending)))
	return orphans
}

// take returns the newest preflight waiting for the call key that came
// within preflightWindow, and forgets it; an older one is another call's,
// or an orphan.
func (p *preflights) take(key string, now time.Time) *journalEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.pending) - 1; i >= 0; i-- {
		pf := p.pending[i]
		if pf.key == key && now.Sub(pf.at) <= preflightWindow {
			p.pending = slices.Delete(p.pending, i, i+1)
			p.waiting.Store(int64(len(p.pending)))
			return pf.entry
		}
	}
	return nil
}

// expired removes and returns the preflights whose window has passed.
func (p *preflights) expired(now time.Time) []pendingPreflight {
	if p.waiting.Load() == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	defer func() { p.waiting.Store(int64(len(p.pending))) }()
	var out []pendingPreflight
	p.pending = slices.DeleteFunc(p.pending, func(pf pendingPreflight) bool {
		old := now.Sub(pf.at) > preflightWindow
		if old {
			out = append(out, pf)
		}
		return old
	})
	return out
}

// calledFrom remembers that account called from origin.
func (p *preflights) calledFrom(origin, account string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.origins == nil {
		p.origins = map[string]string{}
	}
	if _, ok := p.origins[origin]; !ok {
		if len(p.order) >= maxOrigins {
			delete(p.origins, p.order[0])
			p.order = slices.Delete(p.order, 0, 1)
		}
		p.order = append(p.order, origin)
	}
	p.origins[origin] = account
}

// accountOf is the account that last called from origin, or "".
func (p *preflights) accountOf(origin string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.origins[origin]
}

// len is how many preflights are waiting.
func (p *preflights) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending)
}

// journalOrphan marks a preflight no call followed.
type journalOrphan struct {
	// Reason is the probable cause, as far as the preflight shows it.
	Reason string `json:"reason"`
}

// answerPreflight answers a CORS preflight (cors has set its headers) and,
// for a path of the API, keeps it for the journal of the call it prepares.
func (s *Server) answerPreflight(w http.ResponseWriter, r *http.Request, start time.Time) {
	w.WriteHeader(http.StatusNoContent)
	origin := r.Header.Get("Origin")
	now := s.cfg.Clock.Now()
	defer s.journalOrphans(now)
	if origin == "" || !strings.HasPrefix(r.URL.Path, "/api/v1/") {
		return
	}
	method := r.Header.Get("Access-Control-Request-Method")
	e := &journalEntry{
		Time: now.UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Status: http.StatusNoContent, DurationMS: float64(time.Since(start).Microseconds()) / 1000,
		Request:  journalMessage{Headers: maskHeaders(r.Header)},
		Response: journalMessage{Headers: w.Header().Clone()},
		host:     r.Host, tls: r.TLS != nil,
		Preflight: true,
		orphanWhy: orphanReason(method, r.Header.Get("Access-Control-Request-Headers"), w.Header().Get("Access-Control-Allow-Headers")),
	}
	s.journalPreflights(s.preflights.add(pendingPreflight{key: preflightKey(origin, method, r.URL.RequestURI()), origin: origin, at: now, entry: e}))
}

// claimPreflight records in account's journal the preflight that prepared
// r, if one is waiting, after the orphans whose window has passed.
func (s *Server) claimPreflight(r *http.Request, account string) {
	now := s.cfg.Clock.Now()
	s.journalOrphans(now)
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	s.preflights.calledFrom(origin, account)
	if e := s.preflights.take(preflightKey(origin, r.Method, r.URL.RequestURI()), now); e != nil {
		s.journal.add(account, e)
	}
}

// journalOrphans records the preflights whose call did not come in time.
func (s *Server) journalOrphans(now time.Time) {
	s.journalPreflights(s.preflights.expired(now))
}

// journalPreflights records preflights no call claimed as orphans, each in
// the journal of the account that last called from its origin, else the
// first configured key's.
func (s *Server) journalPreflights(orphans []pendingPreflight) {
	for _, pf := range orphans {
		account := s.preflights.accountOf(pf.origin)
		if account == "" {
			account = s.keys[0].account
		}
		pf.entry.Orphan = &journalOrphan{Reason: pf.entry.orphanWhy}
		s.journal.add(account, pf.entry)
	}
}

// orphanReason names what in a preflight's exchange would make a browser
// refuse it, or says that nothing in it would.
func orphanReason(method, askedHeaders, allowedHeaders string) string {
	if !slices.Contains(strings.Split(corsMethods, ", "), strings.ToUpper(method)) {
		return "probable CORS failure: the mock does not allow the method " + method + " (it allows " + corsMethods + "); the browser never sent the call"
	}
	allowed := map[string]bool{}
	for _, h := range strings.Split(allowedHeaders, ",") {
		allowed[strings.ToLower(strings.TrimSpace(h))] = true
	}
	var missing []string
	for _, h := range strings.Split(askedHeaders, ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" && !allowed[h] {
			missing = append(missing, h)
		}
	}
	if len(missing) > 0 {
		return "probable CORS failure: the preflight asked for more headers than the mock echoes (at most " +
			strconv.Itoa(maxAskedHeaders) + " names, " + strconv.Itoa(maxAskedHeadersSize) + " bytes), so it did not allow " +
			strings.Join(missing, ", ") + "; the browser never sent the call"
	}
	return "probable CORS failure or a page that went away: the mock allowed the method and every header asked, " +
		"yet no call followed within " + preflightWindow.String() + "; the browser's console says which"
}
