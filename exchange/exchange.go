// Package exchange is one HTTP exchange as the kit's reports show it and its
// judges read it: the request and the answer, redacted, a one-line summary,
// a rendering with a curl command that reproduces it, and the raw bytes the
// judges parse (never rendered). It links only the standard library and the
// kit's curl builder and truncation, so the validating proxy uses it
// without the suite.
package exchange

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"contractkit/internal/textcut"
)

// ExcerptLimit bounds the request and response bodies shown in a report.
const ExcerptLimit = 2048

// Exchange is one request and its answer. Every exported field with a JSON
// name is redacted: neither API key appears in it. The fields without one
// are what the judges read; they are never rendered or written.
type Exchange struct {
	Method         string        `json:"method"`
	URL            string        `json:"url"`
	RequestHeader  http.Header   `json:"request_header"`
	RequestBody    string        `json:"request_body,omitempty"`
	Status         int           `json:"status"`
	ResponseHeader http.Header   `json:"response_header,omitempty"`
	ResponseBody   string        `json:"response_body,omitempty"`
	Error          string        `json:"error,omitempty"`
	Duration       time.Duration `json:"duration"`
	Curl           string        `json:"curl"`

	// Path is the API path ("/api/v1/user/model/7") and RawQuery the
	// query as sent, for routing against the contract.
	Path     string `json:"-"`
	RawQuery string `json:"-"`
	// Sent is the request body as sent, nil when there was none or it was
	// not held (SentCut: over the holder's bound).
	Sent    []byte `json:"-"`
	SentCut bool   `json:"-"`
	// Raw is the whole answer body as received, not redacted.
	Raw []byte `json:"-"`
	// Withheld is why the request was not sent (the run's budget, or a
	// resource the run reuses and never changes); nil when it was.
	Withheld error `json:"-"`
	// Seq numbers the exchanges of one client in the order they were
	// sent (from 1); 0 for an exchange no client sent.
	Seq uint64 `json:"-"`
}

// Line is the one-line summary "METHOD URL → status".
func (x *Exchange) Line() string {
	if x == nil {
		return "(no request)"
	}
	got := fmt.Sprint(x.Status)
	switch {
	case x.Error != "" && x.Status == 0:
		got = "no response: " + x.Error
	case x.Error != "":
		got += " (then " + x.Error + ")"
	}
	return fmt.Sprintf("%s %s → %s", x.Method, x.URL, got)
}

// String renders the exchange for a report: request, answer and a curl
// command that reproduces it.
func (x *Exchange) String() string {
	if x == nil {
		return "(no request)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Request:  %s %s\n", x.Method, x.URL)
	writeHeaders(&b, x.RequestHeader)
	if x.RequestBody != "" {
		fmt.Fprintf(&b, "  body: %s\n", indentTail(x.RequestBody))
	}
	if x.Status == 0 {
		fmt.Fprintf(&b, "Response: none (%s) after %s\n", x.Error, x.Duration.Round(time.Millisecond))
	} else {
		fmt.Fprintf(&b, "Response: %d %s after %s\n", x.Status, http.StatusText(x.Status), x.Duration.Round(time.Millisecond))
		writeHeaders(&b, x.ResponseHeader)
		if x.ResponseBody != "" {
			fmt.Fprintf(&b, "  body: %s\n", indentTail(x.ResponseBody))
		}
		if x.Error != "" {
			fmt.Fprintf(&b, "  then: %s\n", x.Error)
		}
	}
	fmt.Fprintf(&b, "Reproduce:\n  %s\n", x.Curl)
	return b.String()
}

func writeHeaders(b *strings.Builder, h http.Header) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range h[k] {
			fmt.Fprintf(b, "  %s: %s\n", k, v)
		}
	}
}

func indentTail(s string) string { return strings.ReplaceAll(s, "\n", "\n        ") }

// Excerpt is s cut to ExcerptLimit characters, with its length when cut.
func Excerpt(s string) string {
	if len(s) <= ExcerptLimit {
		return s
	}
	return fmt.Sprintf("%s (%d bytes in all)", textcut.Shorten(s, ExcerptLimit), len(s))
}

// Log is every exchange of one check, as attached to its report.
type Log []*Exchange

// String renders the log.
func (l Log) String() string {
	var b strings.Builder
	for i, x := range l {
		fmt.Fprintf(&b, "--- exchange %d of %d\n%s", i+1, len(l), x)
	}
	return b.String()
}
