// Package bound reads what a server sends within bounds of size and time,
// whatever the server does: an answer that never ends, drips a byte at a
// time, floods its headers, or an event stream that never ends, goes
// silent or sends one event without end. Each bound, when reached, cuts
// the read with its own reason (an *Error), distinct from a transport
// error, so a check fails with "over 8 MiB" or "no event for 30s" instead
// of waiting out its timeout or growing without limit.
//
// The pieces, for the suite's client and the proxy:
//
//   - Reader: a body or an event stream read under Limits (bytes, one
//     event's bytes, the gap between events, the whole duration, a minimum
//     rate after a grace period), one timer for all the time bounds;
//   - Transport and FromTransport: the response-header bound of net/http,
//     and its error turned into an *Error;
//   - Stall: N deadlines in a row mean the server stopped answering,
//     reported once, so the later requests of an operation that stopped
//     answering are withheld, not waited out;
//   - LimitMemory: the runtime's soft memory limit as a backstop under the
//     read bounds (memory.go states the arithmetic).
//
// The package uses the standard library only.
package bound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// Reason is which bound cut a read.
type Reason string

// The bounds.
const (
	// OverBody: a whole answer body over its byte bound.
	OverBody Reason = "body"
	// OverHeader: the answer's headers over their byte bound.
	OverHeader Reason = "header"
	// OverEvent: one event of a stream over its byte bound.
	OverEvent Reason = "event"
	// OverStream: a whole event stream over its byte bound.
	OverStream Reason = "stream"
	// TooSlow: fewer bytes than the minimum rate after the grace period.
	TooSlow Reason = "slow"
	// Idle: no event of a stream within the idle limit.
	Idle Reason = "idle"
	// TooLong: the whole read went on past its duration.
	TooLong Reason = "duration"
)

// ErrOverSize is wrapped by every *Error of a size bound.
var ErrOverSize = errors.New("over a size bound")

// ErrDeadline is wrapped by every *Error of a time bound (slow, idle,
// duration): the server stopped making progress.
var ErrDeadline = errors.New("past a time bound")

// Error is a read cut by a bound. Its text is the reason a failed check
// gives.
type Error struct {
	Reason Reason
	// Limit is the bound in bytes (sizes) or bytes per second (TooSlow).
	Limit int64
	// Wait is the time bound: the idle limit, the duration, or the grace.
	Wait time.Duration
	// Read is how many bytes were read before the cut, After how long the
	// read had lasted.
	Read  int64
	After time.Duration
}

func (e *Error) Error() string {
	switch e.Reason {
	case OverBody:
		return fmt.Sprintf("the answer's body is over %s: reading stopped there", Size(e.Limit))
	case OverHeader:
		return fmt.Sprintf("the answer's headers are over %s", Size(e.Limit))
	case OverEvent:
		return fmt.Sprintf("one event of the stream is over %s: reading stopped there", Size(e.Limit))
	case OverStream:
		return fmt.Sprintf("the stream is over %s: reading stopped there", Size(e.Limit))
	case TooSlow:
		return fmt.Sprintf("the answer came slower than %s/s after %s: %s in %s, cut", Size(e.Limit), e.Wait, Size(e.Read), e.After.Round(time.Millisecond))
	case Idle:
		return fmt.Sprintf("the stream sent no event for %s (%s in %s), cut", e.Wait, Size(e.Read), e.After.Round(time.Millisecond))
	case TooLong:
		return fmt.Sprintf("the stream was still going after %s (%s read), cut", e.Wait, Size(e.Read))
	}
	return fmt.Sprintf("cut by bound %q", string(e.Reason))
}

// Is makes errors.Is(err, ErrOverSize) and errors.Is(err, ErrDeadline)
// true for the bounds of their kind.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrOverSize:
		return e.Reason == OverBody || e.Reason == OverHeader || e.Reason == OverEvent || e.Reason == OverStream
	case ErrDeadline:
		return e.Reason == TooSlow || e.Reason == Idle || e.Reason == TooLong
	}
	return false
}

// Size writes n bytes for a reader: "8 MiB", "1.5 KiB", "37 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// Class is what an outcome says of the server, for Stall and the reports.
type Class int

const (
	// Answered: the read ended normally (err is nil).
	Answered Class = iota
	// OverSize: the server sent more than a bound; it answered, too much.
	OverSize
	// Deadline: the server stopped making progress (a time bound, the
	// request's deadline, a network timeout).
	Deadline
	// Broken: the connection failed otherwise (reset, refused, a
	// malformed answer).
	Broken
)

// Classify sorts err into a Class.
func Classify(err error) Class {
	var ne net.Error
	switch {
	case err == nil:
		return Answered
	case errors.Is(err, ErrOverSize):
		return OverSize
	case errors.Is(err, ErrDeadline), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return Deadline
	}
	return Broken
}
