package bound

import (
	"net/http"
	"regexp"
	"strconv"
)

// HeaderBytes bounds an answer's headers: 1 MiB, what net/http's own
// server accepts of a request's (its client allows 10 MiB).
const HeaderBytes = 1 << 20

// Transport returns a copy of base (http.DefaultTransport's settings when
// base is nil) whose answers' headers are bounded by max bytes: a server
// whose headers never end fails the request with net/http's error, which
// FromTransport turns into an *Error.
func Transport(base *http.Transport, max int64) *http.Transport {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport)
	}
	t := base.Clone()
	t.MaxResponseHeaderBytes = max
	return t
}

// headerExceeded is net/http's text for a response whose headers pass
// MaxResponseHeaderBytes (transport.go); it has no error value of its own.
var headerExceeded = regexp.MustCompile(`server response headers exceeded (\d+) bytes`)

// FromTransport returns the *Error of the header bound when err is
// net/http's refusal of headers over MaxResponseHeaderBytes, and err as it
// is otherwise.
func FromTransport(err error) error {
	if err == nil {
		return nil
	}
	m := headerExceeded.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return &Error{Reason: OverHeader, Limit: n}
}
