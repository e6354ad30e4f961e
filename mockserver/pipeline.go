package mockserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/store"
)

// call is one routed, authenticated, validated API request.
type call struct {
	w       http.ResponseWriter
	r       *http.Request
	op      *openapi3.Operation
	params  map[string]string
	account *store.Account
	// body is the JSON body, already read (bounded) and validated; nil for
	// multipart operations, whose handlers read the stream themselves.
	body []byte
}

// handler serves one operation. It returns the success envelope's data, or
// (nil, nil) when it wrote the answer itself (a stream).
type handler func(c *call) (any, error)

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
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration", time.Since(start))
	}()
	s.cors(rec, r)
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		rec.WriteHeader(http.StatusNoContent)
		return
	}
	out := http.ResponseWriter(rec)
	if s.mutant != nil {
		if s.mutant.Request != nil {
			s.mutant.Request(r)
		}
		mw := s.mutant.wrap(rec, r)
		defer mw.finish()
		out = mw
	}
	switch {
	case r.URL.Path == "/":
		s.console(out, r)
	case r.URL.Path == "/favicon.ico":
		// Browsers ask for it when the console opens; no icon, and no 401 noise.
		out.WriteHeader(http.StatusNoContent)
	case r.URL.Path == "/healthz":
		s.health(out, r)
	case isDocsPath(r.URL.Path):
		s.docs(out, r)
	case strings.HasPrefix(r.URL.Path, "/admin/"):
		s.admin(out, r)
	case strings.HasPrefix(r.URL.Path, "/api/v1/"):
		s.journaled(out, r, s.api)
	default:
		s.api(out, r)
	}
}

func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	account, err := s.authenticate(r)
	if err != nil && !s.mutant.skipsAuth(r, err) {
		apierr.Write(w, s.log, err)
		return
	}
	if account == "" {
		account = s.keys[0].account // only a mutant that accepts any key gets here
	}
	if err := s.limiter.allow(w, account); err != nil {
		apierr.Write(w, s.log, err)
		return
	}
	op, params, methodKnown, found := s.contract.Find(r)
	if !found {
		if methodKnown {
			apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "Method %s is not allowed on %s", r.Method, r.URL.Path))
			return
		}
		apierr.Write(w, s.log, apierr.New(apierr.NotFound, "No such endpoint: %s %s", r.Method, r.URL.Path))
		return
	}
	if err := s.delay(r); err != nil {
		apierr.Write(w, s.log, err)
		return
	}
	if s.chance(s.cfg.ErrorRate) {
		apierr.Write(w, s.log, apierr.New(apierr.Internal, "Internal server error (injected by --error-rate)"))
		return
	}
	if done, err := s.prefer(w, r, op); done || err != nil {
		if err != nil {
			apierr.Write(w, s.log, err)
		}
		return
	}
	c := &call{w: w, r: r, op: op, params: params, account: s.store.Account(account)}
	if err := s.validate(c); err != nil && !s.mutant.skipsValidation(c, err) {
		apierr.Write(w, s.log, err)
		return
	}
	data, err := s.handlers[op.OperationID](c)
	switch {
	case err != nil:
		apierr.Write(w, s.log, err)
	case data != nil:
		apierr.WriteData(w, data)
	}
}

// delay sleeps for --latency plus the X-Mock-Delay header, ending early when
// the client leaves.
func (s *Server) delay(r *http.Request) error {
	d := s.cfg.Latency
	if h := r.Header.Get("X-Mock-Delay"); h != "" {
		extra, err := parseDelay(h)
		if err != nil {
			return apierr.New(apierr.BadRequest, "X-Mock-Delay: %v", err)
		}
		d += extra
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.Context().Done():
		return r.Context().Err()
	case <-s.shutdown:
		return apierr.New(apierr.Internal, "server is shutting down")
	}
}

// parseDelay reads "250ms", "2s" or a bare number of milliseconds.
func parseDelay(h string) (time.Duration, error) {
	d, err := time.ParseDuration(h)
	if err != nil {
		ms, err2 := strconv.Atoi(h)
		if err2 != nil {
			return 0, errors.New("expected a duration such as 250ms or 2s")
		}
		d = time.Duration(ms) * time.Millisecond
	}
	if d < 0 || d > MaxDelay {
		return 0, fmt.Errorf("must be within 0..%s", MaxDelay)
	}
	return d, nil
}

// validate checks the request against the contract. JSON bodies are read
// (bounded), checked for syntax and depth (400), then the whole request goes
// through libopenapi-validator (422 for schema violations). Multipart bodies
// are left to their handlers, which read them as a stream.
func (s *Server) validate(c *call) error {
	if c.op.RequestBody != nil && c.op.RequestBody.Value != nil {
		rb := c.op.RequestBody.Value
		mt := mediaType(c.r.Header.Get("Content-Type"))
		hasBody := c.r.ContentLength > 0 || (c.r.ContentLength < 0 && c.r.Body != nil && c.r.Body != http.NoBody)
		switch {
		case rb.Content.Get("multipart/form-data") != nil:
			if mt != "multipart/form-data" {
				return apierr.New(apierr.BadRequest, "Content-Type must be multipart/form-data (got %q)", bound(mt, 80))
			}
			c.r.Body = http.MaxBytesReader(c.w, c.r.Body, MaxMultipartBody)
			return s.validateParams(c)
		case !hasBody && !rb.Required:
			// An optional body that is absent (rename with ?title=).
		default:
			if mt != "application/json" {
				if mt == "" && !hasBody {
					return apierr.New(apierr.BadRequest, "request body is required: send a JSON object with Content-Type: application/json")
				}
				return apierr.New(apierr.BadRequest, "Content-Type must be application/json (got %q)", bound(mt, 80))
			}
			body, err := io.ReadAll(http.MaxBytesReader(c.w, c.r.Body, MaxJSONBody))
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					return apierr.New(apierr.TooLarge, "request body exceeds %d bytes", MaxJSONBody)
				}
				return apierr.New(apierr.BadRequest, "request body could not be read")
			}
			if err := checkJSON(body, MaxJSONDepth); err != nil {
				return err
			}
			c.body = body
		}
	}
	return s.validateRequest(c)
}

func (s *Server) validateParams(c *call) error {
	pv := s.contract.Validator.GetParameterValidator()
	if ok, errs := pv.ValidateQueryParams(c.r); !ok {
		return invalid(errs)
	}
	return nil
}

func (s *Server) validateRequest(c *call) error {
	orig := c.r.Body
	if c.body != nil {
		c.r.Body = io.NopCloser(bytes.NewReader(c.body))
	}
	ok, errs := s.contract.Validator.ValidateHttpRequestSync(c.r)
	c.r.Body = orig
	if !ok {
		return invalid(errs)
	}
	return nil
}

func mediaType(h string) string {
	if h == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(h)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(h))
	}
	return mt
}

func bound(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
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

// ctxDone reports whether ctx has ended.
func ctxDone(ctx context.Context) bool { return ctx.Err() != nil }
