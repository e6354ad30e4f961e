package mockserver

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// journaled serves an authenticated /api/v1 request through api and records
// it in the account's journal. (A request without a valid key belongs to no
// account and is not recorded.) The key itself is never stored: the
// Authorization header is masked and the curl command names $API_KEY.
func (s *Server) journaled(w http.ResponseWriter, r *http.Request, account string) {
	start := time.Now()
	s.claimPreflight(r, account)
	at := s.cfg.Clock.Now()
	rb := newJournalBody(r)
	var sent io.ReadCloser // the body as net/http gave it, put back when done
	if rb != nil {
		// In place, not on a copy of the request (a copy costs more than
		// the rest of the entry): net/http drains and closes the body it
		// keeps itself, and the deferred entry below puts this one back.
		sent, r.Body = r.Body, rb
	}
	jw := &journalWriter{ResponseWriter: w}
	// Deferred, so a stream cut on purpose (a panic of http.ErrAbortHandler)
	// is recorded too; the panic goes on.
	defer func() {
		e := &journalEntry{
			Time: at.UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			Status: jw.status, DurationMS: float64(time.Since(start).Microseconds()) / 1000,
			Request:  journalMessage{Headers: maskHeaders(r.Header)},
			Response: jw.message(),
			host:     r.Host, tls: r.TLS != nil,
			Override: jw.override,
		}
		if u := jw.unknown; u != nil {
			e.UnknownFields, e.UnknownMore = u.names, u.total-len(u.names)
		}
		if rb != nil {
			rb.finish(r)
			e.Request.Body, e.Request.BodySize, e.Request.BodyTruncated = rb.summary()
			if rb.pw != nil {
				e.multipart = nonNilParts(rb.parts)
			}
			r.Body = sent
		}
		s.journal.add(account, e)
	}()
	s.api(jw, r, account, nil)
}

// nonNilParts marks a multipart body without parts as multipart still.
func nonNilParts(p []journalPart) []journalPart {
	if p == nil {
		return []journalPart{}
	}
	return p
}

// masked is what the journal shows in place of a credential.
const masked = "****"

// maskedAs is a credential of scheme masked; the mock's own scheme costs
// no string per request.
func maskedAs(scheme string) string {
	if scheme == "Bearer" {
		return "Bearer " + masked
	}
	return scheme + " " + masked
}

// maskHeaders copies h with credentials masked: the scheme stays, the
// secret becomes masked.
func maskHeaders(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	for _, name := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
		vs := out.Values(name)
		for i, v := range vs {
			if scheme, _, ok := strings.Cut(strings.TrimSpace(v), " "); ok && name != "Cookie" {
				vs[i] = maskedAs(scheme)
			} else {
				vs[i] = masked
			}
		}
	}
	return out
}
