package proxy

import (
	"context"
	"io"
	"net/http"
	"time"

	"contractkit/bound"
)

// Bounds are what the proxy waits for and forwards of one answer, the
// suite's client's bounds (bound): a target that floods,
// drips or holds a stream open is cut with the bound's reason, reported as
// the exchange's finding, and the client is told by a cut answer.
type Bounds struct {
	// Answer bounds the bytes of one answer, event stream or not.
	Answer int64
	// StreamIdle bounds the gap between two events of a stream.
	StreamIdle time.Duration
	// StreamDuration bounds one answer's whole duration, once its headers
	// have arrived.
	StreamDuration time.Duration
	// AnswerTimeout bounds the wait for an answer's headers.
	AnswerTimeout time.Duration
}

// The default bounds: the suite's stream bounds (bound.Stream), a header
// wait of 2 minutes (a model create may take long to answer on a real
// deployment).
var (
	DefaultMaxAnswer      = bound.Stream.Bytes
	DefaultStreamIdle     = bound.Stream.Idle
	DefaultStreamDuration = bound.Stream.Duration
)

// DefaultAnswerTimeout is the proxy's own: the suite bounds a wait for
// headers per check, the proxy per answer.
const DefaultAnswerTimeout = 2 * time.Minute

// DefaultBounds are the bounds of New.
var DefaultBounds = Bounds{Answer: DefaultMaxAnswer, StreamIdle: DefaultStreamIdle,
	StreamDuration: DefaultStreamDuration, AnswerTimeout: DefaultAnswerTimeout}

// SetBounds changes the bounds (before the proxy serves).
func (p *Proxy) SetBounds(b Bounds) {
	p.bounds = b
	p.tr.ResponseHeaderTimeout = b.AnswerTimeout
}

// limits are the read bounds of an answer: an event stream's (one event,
// the gap between events) or any other's (a minimum rate, as the suite's
// client reads a body).
func (b Bounds) limits(stream bool) bound.Limits {
	if stream {
		return bound.Limits{Bytes: b.Answer, Event: bound.Stream.Event, Idle: b.StreamIdle, Duration: b.StreamDuration}
	}
	return bound.Limits{Bytes: b.Answer, Duration: b.StreamDuration, Rate: bound.Body.Rate, Grace: bound.Body.Grace}
}

// boundedBody is an answer's body read within its bounds; cut ends the
// target's request, which unblocks a read waiting on a silent target.
func boundedBody(body io.ReadCloser, lim bound.Limits, cut context.CancelFunc) io.ReadCloser {
	r := bound.NewReader(body, lim, cut)
	return struct {
		io.Reader
		io.Closer
	}{r, closers{r, body}}
}

type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// boundTransport is the proxy's transport to the target: the answer's
// headers bounded by bound.HeaderBytes.
func boundTransport() *http.Transport {
	return bound.Transport(http.DefaultTransport.(*http.Transport), bound.HeaderBytes)
}
