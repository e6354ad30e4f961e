// Package client is the suite's HTTP client: it sends a check's requests
// (JSON, multipart forms, raw bodies, any Authorization), waits out a 429
// with Retry-After within bounds, records every exchange redacted (the log
// a check's report shows, with a curl command that reproduces each) and
// feeds every answer it reads to the run's contract coverage. Every answer
// is read within bounds (bound): its headers, its body, an
// event stream's events, its whole size and its pace, so a server that
// floods, drips or hangs fails the check with the bound it passed instead
// of exhausting the suite's memory or time; a server that stopped
// answering (several deadlines in a row, bound.Stall) has the requests of
// its area withheld. It links no test framework.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"contractkit/bound"
	"contractkit/coverage"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"
)

// Auth says which Authorization header a request carries.
type Auth int

const (
	// AuthKey sends "Bearer <the first account's key>" (the default).
	AuthKey Auth = iota
	// AuthKey2 sends "Bearer <the second account's key>".
	AuthKey2
	// AuthNone sends no Authorization header.
	AuthNone
	// AuthRaw sends Request.RawAuth verbatim (a wrong scheme, an unknown key).
	AuthRaw
	// AuthNear sends "Bearer <the first key, its last character changed>":
	// a near miss no account has, redacted like the key itself.
	AuthNear
)

// Request is one HTTP request of a check. Exactly one of JSON, Body or
// Form is set, or none for a request without a body.
type Request struct {
	Method string
	// Path is the API path ("/api/v1/user/model/7"), joined to the base URL.
	Path  string
	Query url.Values
	// JSON is marshalled as the body with Content-Type application/json.
	JSON any
	// Body is sent as is with ContentType.
	Body        []byte
	ContentType string
	// Form is sent as multipart/form-data.
	Form *exchange.Form
	// Header holds extra request headers (Accept, ...).
	Header http.Header
	Auth   Auth
	// RawAuth is the Authorization header value when Auth is AuthRaw.
	RawAuth string
	// NoRetry sends the request once even when it is answered 429: for
	// the rate-limit checks, which must see the 429 (see retryAfter).
	NoRetry bool
	// Refusal marks a valid request the server must refuse for the state
	// it is in (a taken name, a running evaluation started again): the
	// gate charges it nothing. A request that breaks the contract is
	// known as a refusal without it.
	Refusal bool
}

// Client sends the suite's requests and records each exchange. It is safe
// for use by one spec at a time (Ginkgo runs the suite serially here).
type Client struct {
	base    *url.URL
	key     string
	key2    string
	http    *http.Client
	redact  *exchange.Redactor
	timeout time.Duration

	// body and stream bound every answer read (SetLimits).
	body, stream bound.Limits

	mu  sync.Mutex // guards log, logged, area and opened
	log []*exchange.Exchange
	// logged counts the exchanges since Reset, those dropped from log too.
	logged int
	// area is the part of the run the requests belong to (SetArea); the
	// stall detector judges each operation of an area apart, and one
	// operation stopped stops its area (stopped).
	area    string
	stopped map[string]string
	// opened are the bodies Open handed out, until Finish reads their bound.
	opened map[*exchange.Exchange]*boundedBody
	stall  *bound.Stall

	// retries counts the requests repeated after a 429 (see retryAfter).
	retries atomic.Int64

	// cov sees every answer the client reads, the explore phase's and the
	// streams' included: the run's contract coverage.
	cov *coverage.Recorder

	// gate is asked before every request (gate.go); nil: none.
	gate Gate
	// pending holds the gate's settlements of opened calls until Finish
	// (gate.go); guarded by mu.
	pending map[*exchange.Exchange]func(*exchange.Exchange)

	// judge judges every answer read (judged.go); verdicts keeps what it
	// found until claimed or swept; seq numbers the exchanges sent. All
	// guarded by mu.
	judge    *judge.Judge
	verdicts verdicts
	seq      uint64
}

// New returns a client for base (the service base address). timeout
// bounds each request that is not a stream. Answers are read within
// bound.Body and bound.Stream (SetLimits changes them), headers within
// bound.HeaderBytes.
func New(base *url.URL, key, key2 string, timeout time.Duration) *Client {
	return &Client{
		base: base,
		key:  key,
		key2: key2,
		http: &http.Client{
			Transport:     bound.Transport(nil, bound.HeaderBytes),
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		body:    bound.Body,
		stream:  bound.Stream,
		opened:  map[*exchange.Exchange]*boundedBody{},
		stopped: map[string]string{},
		stall:   bound.NewStall(bound.DefaultStall),
		redact:  exchange.NewRedactor(key, key2).Also(NearKey(key), "<redacted:near-miss-api-key>"),
		timeout: timeout,
		// Coverage counts what the contract as written documents; the
		// declared view relaxes some schemas whole, which would hide
		// their fields.
		cov: coverage.New(spec.Strict()),
	}
}

// Coverage is the contract coverage of every answer the client has read.
func (c *Client) Coverage() coverage.Report { return c.cov.Report() }

// Reset empties the exchange log (at the start of each check).
func (c *Client) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log, c.logged = nil, 0
	clear(c.opened) // an answer opened and never finished is the last check's
}

// Log returns the exchanges since the last Reset, as reports show them:
// their bodies' excerpts, not the bodies (Raw and Sent are not kept), and
// at most LogFirst and LogLast of them (a check that polls for minutes
// would otherwise keep every answer). Logged says how many there were.
func (c *Client) Log() []*exchange.Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*exchange.Exchange(nil), c.log...)
}

// Logged is how many exchanges the check made, those Log dropped included.
func (c *Client) Logged() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logged
}

// The exchanges a check's log keeps: its first (what it made) and its last
// (where it failed).
const (
	LogFirst = 10
	LogLast  = 90
)

func (c *Client) record(x *exchange.Exchange) {
	kept := *x
	kept.Raw, kept.Sent = nil, nil
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logged++
	if len(c.log) == LogFirst+LogLast {
		c.log = slices.Delete(c.log, LogFirst, LogFirst+1)
	}
	c.log = append(c.log, &kept)
}

// Do sends r and reads the whole response. A transport failure is recorded
// in Exchange.Error (Status 0), never returned: checks report it. A 429
// with Retry-After is waited out and r repeated (retryAfter); each attempt
// has the client's timeout, the waits are bounded by ctx. A request the
// gate withholds is not sent: its exchange carries the reason in Withheld.
func (c *Client) Do(ctx context.Context, r Request) *exchange.Exchange {
	settle, withheld := c.admit(r)
	if withheld != nil {
		return withheld
	}
	resp, x, done := c.attempts(ctx, r, c.timeout)
	defer done()
	if resp != nil {
		c.readAll(x, resp)
	}
	settle(x)
	return x
}

// Open sends r and returns the response with its body unread, for a
// stream; the caller reads it, closes it and must call Finish with what
// it read. The body is read within the client's bounds (SetLimits): an
// event stream within the stream bound, any other answer within the body
// bound; a bound that cuts it ends the request and its read returns the
// *bound.Error. A 429 is retried as by Do. The gate is told of the call
// by Finish, once its body says what the call made (an id).
func (c *Client) Open(ctx context.Context, r Request) (resp *http.Response, x *exchange.Exchange) {
	settle, withheld := c.admit(r)
	if withheld != nil {
		return nil, withheld
	}
	ctx, cancel := context.WithCancel(ctx)
	resp, x, _ = c.attempts(ctx, r, 0)
	if resp == nil {
		cancel()
		settle(x)
		return nil, x
	}
	c.pend(x, settle) // Finish settles it, once the body says what was made
	c.bounded(x, resp, cancel)
	return resp, x
}

// attempts is the one retry loop of Do and Open: it sends r until r is not
// to be repeated (retryAfter); a 429 that is waited out is read and
// recorded first. It returns the last response with its body unread, or
// nil when the request failed or ctx ended during a wait (x says which).
// A timeout other than 0 bounds each attempt, the reading of its body
// included: done releases the last attempt once its body is read.
func (c *Client) attempts(ctx context.Context, r Request, timeout time.Duration) (resp *http.Response, x *exchange.Exchange, done context.CancelFunc) {
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			actx, cancel = context.WithTimeoutCause(ctx, timeout, errAttemptTimeout)
		}
		resp, x = c.send(actx, r)
		if resp == nil {
			cancel()
			return nil, x, cancel
		}
		wait, again := retryAfter(ctx, r, resp, attempt, waited)
		if !again {
			return resp, x, cancel
		}
		c.readAll(x, resp)
		cancel()
		if !Pause(ctx, wait) {
			return nil, x, cancel
		}
		waited += wait
		c.retries.Add(1)
	}
}

// readAll reads and closes the body of resp within the body bound and
// records it in x. The bound's cut closes the body, which unblocks a read
// waiting on a server that drips or went silent.
func (c *Client) readAll(x *exchange.Exchange, resp *http.Response) {
	body, err := bound.ReadAll(resp.Body, c.body, func() { resp.Body.Close() })
	resp.Body.Close()
	if errors.Is(err, context.DeadlineExceeded) {
		// The request's own timeout cut the body before a bound did.
		err = fmt.Errorf("the answer did not end within the request's timeout, %s: %w", c.timeout, err)
	}
	c.finish(resp.Request.Context(), resp, x, body, err)
	c.judgeRead(resp.Request.Context(), x, nil, false)
}

// Finish records the body read from a response opened with Open. When a
// bound cut the body, its *bound.Error is what is recorded, whatever the
// reader made of the cut.
func (c *Client) Finish(x *exchange.Exchange, body []byte, readErr error) {
	c.finishOpened(x, body, readErr, nil, false)
}

// FinishStream records an event stream opened with Open and read as s
// (judge.ReadStream), its Err the reading's. cut says the reader stopped
// reading before the stream's end on purpose (a bound of its own): the
// stream is then judged by the events read.
func (c *Client) FinishStream(x *exchange.Exchange, s *judge.Stream, cut bool) {
	c.finishOpened(x, s.Raw, s.Err, s, cut)
}

func (c *Client) finishOpened(x *exchange.Exchange, body []byte, readErr error, s *judge.Stream, cut bool) {
	c.mu.Lock()
	b := c.opened[x]
	delete(c.opened, x)
	c.mu.Unlock()
	if b != nil {
		if e := b.Err(); e != nil {
			readErr = e
		}
	}
	ctx, resp := context.Background(), (*http.Response)(nil)
	if b != nil {
		ctx, resp = b.ctx, b.resp
	}
	c.finish(ctx, resp, x, body, readErr)
	// The opener says whether it stopped reading on purpose (cut); its
	// context may end for its own reasons once the reading is done.
	c.judgeRead(nil, x, s, cut)
	c.settlePending(x)
}

func (c *Client) send(ctx context.Context, r Request) (*http.Response, *exchange.Exchange) {
	body, contentType, shown, curlData, err := encodeBody(r)
	u := c.url(r.Path, r.Query)
	c.mu.Lock()
	c.seq++
	x := &exchange.Exchange{Method: r.Method, URL: c.redact.String(u), Path: r.Path, RawQuery: queryString(r.Query), Seq: c.seq}
	c.mu.Unlock()
	if err != nil {
		x.Error = "building the request: " + err.Error()
		c.record(x)
		return nil, x
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, bytes.NewReader(body))
	if err != nil {
		x.Error = "building the request: " + err.Error()
		c.record(x)
		return nil, x
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	switch r.Auth {
	case AuthKey:
		req.Header.Set("Authorization", "Bearer "+c.key)
	case AuthKey2:
		req.Header.Set("Authorization", "Bearer "+c.key2)
	case AuthRaw:
		req.Header["Authorization"] = []string{r.RawAuth}
	case AuthNear:
		req.Header.Set("Authorization", "Bearer "+NearKey(c.key))
	}
	x.RequestHeader = c.redact.Header(req.Header)
	x.RequestBody = c.redact.String(exchange.Excerpt(shown))
	x.Sent = body
	x.Curl = exchange.Curl(c.redact, r.Method, u, req.Header, curlData, r.Form)

	area := c.Area()
	if reason, stopped := c.Stopped(area); stopped {
		x.Error = "not sent: " + reason
		c.record(x)
		return nil, x
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	x.Duration = time.Since(start)
	if err != nil {
		err = bound.FromTransport(err)
		c.observe(ctx, area, req, err)
		x.Error = c.redact.String(err.Error())
		c.record(x)
		c.judgeRead(ctx, x, nil, false)
		return nil, x
	}
	x.Status = resp.StatusCode
	x.ResponseHeader = c.redact.Header(resp.Header)
	return resp, x
}

func (c *Client) finish(ctx context.Context, resp *http.Response, x *exchange.Exchange, body []byte, readErr error) {
	c.observe(ctx, c.Area(), resp, readErr)
	c.cov.Observe(x.Method, x.Path, x.Status, x.ResponseHeader.Get("Content-Type"), body)
	x.Raw = body
	x.ResponseBody = c.redact.String(exchange.Excerpt(string(body)))
	if readErr != nil {
		x.Error = "reading the body: " + c.redact.String(readErr.Error())
	}
	c.record(x)
}

// queryString is q as the request sends it.
func queryString(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	return q.Encode()
}

func (c *Client) url(path string, q url.Values) string {
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawPath = ""
	u.RawQuery = queryString(q)
	return u.String()
}

// encodeBody returns the wire body, its content type, the text shown in a
// report and the data for a curl command.
func encodeBody(r Request) (body []byte, contentType, shown string, curlData []byte, err error) {
	switch {
	case r.Form != nil:
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		var parts []string
		for _, f := range r.Form.Fields {
			if err := w.WriteField(f.Name, f.Value); err != nil {
				return nil, "", "", nil, err
			}
			parts = append(parts, fmt.Sprintf("%s=%q", f.Name, f.Value))
		}
		for _, f := range r.Form.Files {
			h := make(textproto.MIMEHeader)
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.Field, f.Name))
			h.Set("Content-Type", "application/octet-stream")
			pw, err := w.CreatePart(h)
			if err != nil {
				return nil, "", "", nil, err
			}
			if _, err := pw.Write(f.Content); err != nil {
				return nil, "", "", nil, err
			}
			parts = append(parts, fmt.Sprintf("%s=@%s (%d bytes)", f.Field, f.Name, len(f.Content)))
		}
		if err := w.Close(); err != nil {
			return nil, "", "", nil, err
		}
		return buf.Bytes(), w.FormDataContentType(), "multipart/form-data: " + strings.Join(parts, ", "), nil, nil
	case r.JSON != nil:
		b, err := json.Marshal(r.JSON)
		if err != nil {
			return nil, "", "", nil, err
		}
		return b, "application/json", string(b), b, nil
	case r.Body != nil:
		return r.Body, r.ContentType, string(r.Body), r.Body, nil
	}
	return nil, "", "", nil, nil
}

// NearKey is key with its last character changed ("x", or "y" for an "x"):
// the reference model's near-miss key (model.NearKey makes the same).
func NearKey(key string) string {
	if key == "" {
		return ""
	}
	next := "x"
	if key[len(key)-1] == 'x' {
		next = "y"
	}
	return key[:len(key)-1] + next
}
