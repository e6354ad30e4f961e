package client

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"

	"contractkit/bound"
	"contractkit/exchange"
	"contractkit/spec"
)

// SetLimits changes the bounds answers are read within: body for an
// answer read whole (Do, and an opened answer that is not an event
// stream), stream for an event stream opened with Open. It is meant to be
// called before the first request.
func (c *Client) SetLimits(body, stream bound.Limits) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.body, c.stream = body, stream
}

// SetArea names the part of the run the next requests belong to (the
// suite's area of the check that sends them).
func (c *Client) SetArea(area string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.area = area
}

// Area is the area named by SetArea.
func (c *Client) Area() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.area
}

// Stopped reports whether the server stopped answering operation op (an
// operationId), or every request, and why. The client no longer sends a
// request of a stopped operation, in any area: it records it with the
// reason (Exchange.Error "not sent: ...", Withheld an error that is
// ErrStopped) without waiting for a deadline again.
func (c *Client) Stopped(op string) (reason string, stopped bool) {
	if reason, stopped := c.stall.Server(); stopped {
		return reason, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	reason = c.stopped[op]
	return reason, reason != ""
}

// withheld reports whether req is not to be sent (its operation, or the
// whole server, stopped answering), and why. The contract's router names
// req's operation only once something is stopped: the first request of a
// run does not pay for loading the contract within its own timeout.
func (c *Client) withheld(req *http.Request) (reason string, stopped bool) {
	if reason, stopped := c.stall.Server(); stopped {
		return reason, true
	}
	c.mu.Lock()
	none := len(c.stopped) == 0
	c.mu.Unlock()
	if none {
		return "", false
	}
	return c.Stopped(operation(req))
}

// ServerStopped reports whether the server stopped answering every
// request (deadlines in a row across operations), and why.
func (c *Client) ServerStopped() (reason string, stopped bool) { return c.stall.Server() }

// ErrStopped is what the Withheld error of a request of a stopped
// operation is (errors.Is): the server stopped answering it. A budget's
// refusal is not.
var ErrStopped = errors.New("the server stopped answering")

// stoppedError is the Withheld error of a request of a stopped operation.
type stoppedErr string

func stoppedError(reason string) error  { return stoppedErr(reason) }
func (e stoppedErr) Error() string      { return string(e) }
func (stoppedErr) Is(target error) bool { return target == ErrStopped }

// bounded wraps the body of an answer opened with Open in the bound of
// its kind; the bound's cut ends the request (cancel), which unblocks a
// read that waits on a silent server.
func (c *Client) bounded(x *exchange.Exchange, resp *http.Response, cancel context.CancelFunc) {
	lim := c.body
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		lim = c.stream
	}
	b := &boundedBody{Reader: bound.NewReader(resp.Body, lim, cancel), body: resp.Body, cancel: cancel, ctx: resp.Request.Context(), resp: resp, limit: lim.Bytes}
	resp.Body = b
	c.mu.Lock()
	c.opened[x] = b
	c.mu.Unlock()
}

// boundedBody is an opened answer's body read within its bound.
type boundedBody struct {
	*bound.Reader
	body   interface{ Close() error }
	cancel context.CancelFunc
	ctx    context.Context // the request's
	resp   *http.Response
	limit  int64 // the bound's bytes
}

// FinishRead reads the body of an answer opened with Open to its end,
// within its bound, in one buffer (bound.Collect: a body cut by its bound
// keeps its head only), closes it and records it as Finish does. It
// returns what it read and the read's error.
func (c *Client) FinishRead(x *exchange.Exchange, resp *http.Response) ([]byte, error) {
	limit := c.body.Bytes
	if b, ok := resp.Body.(*boundedBody); ok {
		limit = b.limit
	}
	body, err := bound.Collect(resp.Body, resp.ContentLength, limit, true)
	resp.Body.Close()
	c.Finish(x, body, err)
	return body, err
}

// excerpt is the report's excerpt of a body as read: one a size bound cut
// says how much was read before the cut (its head alone may be kept).
func excerpt(body []byte, readErr error) string {
	var be *bound.Error
	if !errors.As(readErr, &be) || !errors.Is(be, bound.ErrOverSize) || be.Read <= int64(len(body)) {
		return exchange.ExcerptOf(body)
	}
	return exchange.ExcerptOf(body[:min(len(body), exchange.ExcerptLimit)]) + fmt.Sprintf(" (%d bytes read, then cut)", be.Read)
}

// trimCut is what an exchange keeps of a body its bound cut (its first
// bound.CutKept bytes, in a buffer of their own): the rest is no answer
// a judge reads, and kept whole it would hold the bound for as long as
// the exchange lives. Any other body is kept as read.
func trimCut(body []byte, err error) []byte {
	if len(body) <= bound.CutKept || !errors.Is(err, bound.ErrOverSize) {
		return body
	}
	return append([]byte(nil), body[:bound.CutKept]...)
}

// Close stops the bound's timer, closes the body and ends the request.
func (b *boundedBody) Close() error {
	b.Reader.Close()
	err := b.body.Close()
	b.cancel()
	return err
}

// errAttemptTimeout is the cause of a request's own timeout (Do's), told
// from the caller's context ending. net/http returns the cause as the
// request's error: it is a deadline (bound.Classify) like the one it
// stands for.
var errAttemptTimeout error = attemptTimeout{}

type attemptTimeout struct{}

func (attemptTimeout) Error() string        { return "the request's timeout passed" }
func (attemptTimeout) Is(target error) bool { return target == context.DeadlineExceeded }
func (attemptTimeout) Timeout() bool        { return true }

// observe hands the outcome of a request (req, or the request of resp)
// to the stall detector, under its operation, across the whole run: the
// answers of other operations (a check's set-up) do not hide an operation
// that never answers, and an area that starts does not start its count
// again. An event stream is counted apart from the operation's other
// answers (stream): a refusal read whole shows nothing of streams that
// never end. Once stopped, every later request to the operation is
// withheld (Stopped). The outcome is not observed when the caller's
// context ended first (a wait given up, a check interrupted): that says
// nothing of the server; a bound's cut, or the request's own timeout,
// does.
func (c *Client) observe(ctx context.Context, area string, req any, err error, stream bool) {
	var be *bound.Error
	if err != nil && !errors.As(err, &be) && ctx.Err() != nil && context.Cause(ctx) != errAttemptTimeout {
		return
	}
	var r *http.Request
	switch v := req.(type) {
	case *http.Request:
		r = v
	case *http.Response:
		if v != nil {
			r = v.Request
		}
	}
	op := operation(r)
	key := op
	if stream {
		key = op + " (its event stream)"
	}
	if reason := c.stall.Observe(key, err); reason != "" {
		if area != "" {
			reason = fmt.Sprintf("%s; stopped in %s", reason, area)
		}
		c.mu.Lock()
		if c.stopped[op] == "" {
			c.stopped[op] = reason
		}
		c.mu.Unlock()
	}
}

// operation names r's contract operation (its operationId), or its method
// when the contract has none for it.
func operation(r *http.Request) string {
	if r == nil {
		return "?"
	}
	if op, _, _, ok := spec.Declared().Find(r); ok && op != nil && op.OperationID != "" {
		return op.OperationID
	}
	return r.Method
}
