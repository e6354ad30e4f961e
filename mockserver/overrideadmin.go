package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"contractkit/mockserver/apierr"
)

// overridesAdmin serves the overrides of the caller's account (overrides.go):
//
//	POST   /admin/overrides       set one; the answer is the override with its id and uses left
//	GET    /admin/overrides       the live ones, in the order they are tried
//	DELETE /admin/overrides       remove them all
//	DELETE /admin/overrides/{id}  remove one
func (s *Server) overridesAdmin(w http.ResponseWriter, r *http.Request, account string) {
	if r.URL.Path == "/admin/overrides" {
		switch r.Method {
		case http.MethodPost:
			o, err := s.parseOverride(r)
			if err != nil {
				apierr.Write(w, s.log, err)
				return
			}
			if !s.overrides.add(account, o) {
				apierr.Write(w, s.log, apierr.New(apierr.Conflict, "This key already has %d overrides: remove some first (DELETE /admin/overrides/{id})", maxOverrides))
				return
			}
			apierr.WriteData(w, o.view())
		case http.MethodGet:
			apierr.WriteData(w, s.overrides.list(account))
		case http.MethodDelete:
			n := s.overrides.clear(account)
			apierr.WriteData(w, map[string]any{"message": "Overrides removed", "removed": n})
		default:
			apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "Method %s is not allowed on %s", r.Method, r.URL.Path))
		}
		return
	}
	rest, _ := strings.CutPrefix(r.URL.Path, "/admin/overrides/")
	if r.Method != http.MethodDelete {
		apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "Method %s is not allowed on /admin/overrides/{id}", r.Method))
		return
	}
	id, err := overrideID(rest)
	if err != nil {
		apierr.Write(w, s.log, err)
		return
	}
	o, ok := s.overrides.remove(account, id)
	if !ok {
		apierr.Write(w, s.log, apierr.New(apierr.NotFound, "No override %d for this key (removed, used up, or never set)", id))
		return
	}
	apierr.WriteData(w, o)
}

// overridden applies the first of the account's overrides that matches a
// routed, validated request. done reports that the answer was written (or
// that err is the answer); otherwise the request goes on to its handler,
// with a stream fault or a pace the rule asked for. A delay the rule has is
// waited first, whatever it answers.
func (s *Server) overridden(c *call, account string) (done bool, err error) {
	q := c.r.URL.Query()
	var decoded map[string]any
	o, use := s.overrides.pick(account, &overrideCall{
		operation: c.op.OperationID, params: c.params,
		query:  func(k string) (string, bool) { return q.Get(k), q.Has(k) },
		header: c.r.Header.Values,
		body: func() map[string]any {
			if decoded == nil && c.body != nil {
				_ = json.Unmarshal(c.body, &decoded) // validated JSON; a non-object matches no field
			}
			return decoded
		},
		console: len(c.r.Header.Values("X-Mock-Console")) > 0,
	})
	if o == nil {
		return false, nil
	}
	c.w.Header().Set("X-Mock-Override", strconv.FormatInt(o.ID, 10))
	jo := &journalOverride{ID: o.ID, Kind: o.kind, Use: use}
	if jw := journalWriterOf(c.w); jw != nil {
		jw.override = jo
	}
	if !o.delay.isZero() {
		// The wait of this use of this override: the same in every run
		// with the same seed.
		d := o.delay.pick(s.jitter.fraction(account, "override", uint64(o.ID), uint64(use)))
		ms := float64(d.Microseconds()) / 1000
		jo.DelayMS = &ms
		if err := s.sleep(c.r, d); err != nil {
			return false, err
		}
	}
	if !o.pace.isZero() || o.kind == kindPace {
		c.pace = &streamPace{spec: o.pace, rng: s.jitter.source(account, "pace", uint64(o.ID), uint64(use))}
	}
	switch o.kind {
	case kindStatus:
		msg := o.Respond.Message
		if msg == "" {
			msg = fmt.Sprintf("%s (forced by override %d)", http.StatusText(o.Respond.Status), o.ID)
		}
		if o.Respond.Status == http.StatusTooManyRequests {
			c.w.Header().Set("Retry-After", "1")
		}
		return true, apierr.WithStatus(o.Respond.Status, msg)
	case kindData:
		// Answered before a handler read the body (a multipart upload):
		// drained first, as for an error, so the client reads the answer.
		c.in.finish(c.w, c.r)
		apierr.WriteJSON(c.w, o.Respond.Status, apierr.Success{Status: "success", Data: o.Respond.Data})
		return true, nil
	case kindExample:
		c.in.finish(c.w, c.r)
		apierr.WriteJSON(c.w, http.StatusOK, jsonContent(c.op).Examples[o.Respond.Example].Value.Value)
		return true, nil
	case kindFault:
		c.fault = o.Respond.StreamFault
	}
	return false, nil
}

// journalOverride marks a journal entry an override acted on.
type journalOverride struct {
	ID   int64  `json:"id"`
	Kind string `json:"kind"` // status, data, example, delay, stream_fault or pace
	// Use is which use of the override this call took (1 for the first):
	// the journal tells which call spent each one.
	Use int64 `json:"use"`
	// DelayMS is the wait this use drew from the override's delay, when it
	// has one.
	DelayMS *float64 `json:"delay_ms,omitempty"`
}
