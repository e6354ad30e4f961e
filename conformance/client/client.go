// Package client is the suite's HTTP client: it sends a check's requests
// (JSON, multipart forms, raw bodies, any Authorization), waits out a 429
// with Retry-After within bounds, records every exchange redacted (the log
// a check's report shows, with a curl command that reproduces each) and
// feeds every answer it reads to the run's contract coverage. Every answer
// is read within bounds (bound): its headers, its body, an
// event stream's events, its whole size and its pace, so a server that
// floods, drips or hangs fails the check with the bound it passed instead
// of exhausting the suite's memory or time; an operation the server
// stopped answering (several deadlines in a row, bound.Stall) has its
// later requests withheld for the rest of the run. It links no test
// framework.
package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
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
	// AuthNear sends "Bearer <a near miss of the first key>" (NearKeys,
	// Request.Near picks which): a key no account has, redacted like the
	// key itself.
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
	// RawQuery, when set, is the query string sent as is (Query still
	// says what it holds): a space written %20 rather than +.
	RawQuery string
	// Chunked sends the body without a Content-Length, chunked; Continue
	// asks Expect: 100-continue and sends the body once the server says
	// to (or after the transport's ExpectContinueTimeout).
	Chunked, Continue bool

	Auth Auth
	// RawAuth is the Authorization header value when Auth is AuthRaw.
	RawAuth string
	// Near is which of NearKeys an AuthNear request carries (0: the last
	// character changed; beyond the list, counted round it).
	Near int
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
	// area is the part of the run the requests belong to (SetArea), for
	// the reasons given; stopped holds, by operation, why the server
	// stopped answering it (observe): its later requests are withheld
	// wherever in the run they come.
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
		redact:  nearRedactor(exchange.NewRedactor(key, key2), key),
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
	b := bound.NewReader(resp.Body, c.body, func() { resp.Body.Close() })
	body, err := bound.Collect(b, resp.ContentLength, c.body.Bytes, true)
	b.Close()
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

// NearKeys are the near misses of key a client sends as a wrong key, each
// a key no account has that a careless comparison takes for key (§5.3:
// each must be refused with 401), in this order: its last character
// changed ("x", or "y" for an "x"); a character appended (a comparison of
// the key's length of characters, a prefix match); its last character
// dropped (a comparison of the sent length of characters), from 8
// characters on, so that what is left is still a key-like string to
// redact; and its letters in the other case (a comparison that folds
// case), when it has letters.
func NearKeys(key string) []string {
	var out []string
	for _, n := range nearMisses(key) {
		out = append(out, n.value)
	}
	return out
}

// nearMiss is a near miss of a key and its name in reports.
type nearMiss struct{ value, label string }

func nearMisses(key string) []nearMiss {
	if key == "" {
		return nil
	}
	next := "x"
	if key[len(key)-1] == 'x' {
		next = "y"
	}
	out := []nearMiss{
		{key[:len(key)-1] + next, "<redacted:near-miss-api-key>"},
		{key + next, "<redacted:api-key-with-a-character-appended>"},
	}
	if len(key) >= 8 {
		out = append(out, nearMiss{key[:len(key)-1], "<redacted:api-key-without-its-last-character>"})
	}
	if other := swapCase(key); other != key {
		out = append(out, nearMiss{other, "<redacted:api-key-in-the-other-case>"})
	}
	return out
}

// nearRedactor redacts the near misses of key too.
func nearRedactor(r *exchange.Redactor, key string) *exchange.Redactor {
	for _, n := range nearMisses(key) {
		r.Also(n.value, n.label)
	}
	return r
}

// nearKey is the near miss an AuthNear request carries: NearKeys's n-th,
// counted round the list.
func nearKey(key string, n int) string {
	near := NearKeys(key)
	if len(near) == 0 {
		return ""
	}
	return near[((n%len(near))+len(near))%len(near)]
}

// swapCase turns upper-case ASCII letters to lower case and lower to upper.
func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
