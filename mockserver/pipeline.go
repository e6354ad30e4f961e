package mockserver

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"contractkit/mockserver/apierr"
)

// ServeHTTP runs the pipeline described in the package comment.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler { // a deliberate cut of a stream
				panic(v)
			}
			s.log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
			if !rec.wrote {
				apierr.Write(rec, nil, apierr.New(apierr.Internal, "Internal server error"))
			}
		}
		// The path is logged, never the query (it may carry names) nor any header.
		s.accessLog(r, rec.status, start)
	}()
	s.cors(rec, r)
	if isPreflight(r) {
		s.answerPreflight(rec, r, start)
		return
	}
	out := http.ResponseWriter(rec)
	if s.persist != nil {
		dw := &durableWriter{ResponseWriter: rec, s: s}
		defer dw.finish()
		out = dw
	}
	switch {
	case r.URL.Path == "/":
		s.console(out, r)
	case strings.HasPrefix(r.URL.Path, consoleAssetPrefix):
		s.consoleAsset(out, r)
	case r.URL.Path == "/favicon.ico":
		// Browsers ask for it when the console opens; no icon, and no 401 noise.
		out.WriteHeader(http.StatusNoContent)
	case r.URL.Path == "/healthz":
		s.health(out, r)
	case isDocsPath(r.URL.Path):
		s.docs(out, r)
	case strings.HasPrefix(r.URL.Path, "/admin/"):
		s.admin(out, r)
	default:
		// Authenticated once, here: the journal needs the account too.
		account, err := s.authenticate(r)
		if err == nil && strings.HasPrefix(r.URL.Path, "/api/v1/") {
			s.journaled(out, r, account)
			return
		}
		s.api(out, r, account, err)
	}
}

// api serves a request to the API for account, or answers authErr when the
// request did not authenticate.
func (s *Server) api(w http.ResponseWriter, r *http.Request, account string, authErr error) {
	in := wrapBody(r)
	fail := func(err error) {
		in.finish(w, r)
		apierr.Write(w, s.log, err)
	}
	if authErr != nil {
		fail(authErr)
		return
	}
	if err := s.limiter.allow(w, account); err != nil {
		fail(err)
		return
	}
	op, params, methodKnown, found := s.contract.Find(r)
	if !found {
		if methodKnown {
			fail(apierr.New(apierr.MethodNotAllowed, "Method %s is not allowed on %s", r.Method, r.URL.Path))
			return
		}
		fail(apierr.New(apierr.NotFound, "No such endpoint: %s %s", r.Method, r.URL.Path))
		return
	}
	if err := s.delay(r, account); err != nil {
		fail(err)
		return
	}
	if s.chance(s.cfg.ErrorRate) {
		fail(apierr.New(apierr.Internal, "Internal server error (injected by --error-rate)"))
		return
	}
	if done, err := s.prefer(w, r, op); done || err != nil {
		if err != nil {
			fail(err)
		}
		return
	}
	c := &call{w: w, r: r, op: op, params: decoded(params), account: s.store.Account(account), in: in}
	if err := s.validate(c); err != nil {
		fail(err)
		return
	}
	if done, err := s.overridden(c, account); done || err != nil {
		if err != nil {
			fail(err)
		}
		return
	}
	data, err := s.handlers[op.OperationID](c)
	switch {
	case err != nil:
		fail(err)
	case data != nil:
		apierr.WriteData(w, data)
	}
}

// accessLog writes the request's line. The record is built here, typed
// attributes and no caller's program counter (slog.Logger would walk the
// stack for one on every request, and the line does not show it).
func (s *Server) accessLog(r *http.Request, status int, start time.Time) {
	h := s.log.Handler()
	if !h.Enabled(r.Context(), slog.LevelInfo) {
		return
	}
	now := time.Now()
	rec := slog.NewRecord(now, slog.LevelInfo, "request", 0)
	rec.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.Duration("duration", now.Sub(start)))
	_ = h.Handle(r.Context(), rec)
}

// delay waits --latency plus the X-Mock-Delay header, each a duration or a
// range drawn for the account's next call (latency.go), ending early when
// the client leaves.
func (s *Server) delay(r *http.Request, account string) error {
	d := s.latency
	if h := r.Header.Get("X-Mock-Delay"); h != "" {
		extra, err := parseDelaySpec(h)
		if err != nil {
			return apierr.New(apierr.BadRequest, "X-Mock-Delay: %v", err)
		}
		d = d.plus(extra)
	}
	if d.isZero() {
		return nil
	}
	if d.min == d.max {
		return s.sleep(r, d.min)
	}
	return s.sleep(r, d.pick(s.jitter.fraction(account, "latency", s.jitter.next(account))))
}

// sleep waits d, ending early when the client leaves or the server shuts
// down.
func (s *Server) sleep(r *http.Request, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := s.timers.newTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-r.Context().Done():
		return r.Context().Err()
	case <-s.shutdown:
		return apierr.New(apierr.Internal, "server is shutting down")
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush on the real writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// decoded are the path parameters the router gives back as the client
// wrote them (escaped: %34) read as what they say (4): a percent-encoded
// octet is the octet (RFC 3986 §2.1, D-49). One that does not decode is
// kept as written (it names nothing).
func decoded(params map[string]string) map[string]string {
	for k, v := range params {
		if strings.Contains(v, "%") {
			if d, err := url.PathUnescape(v); err == nil {
				params[k] = d
			}
		}
	}
	return params
}
