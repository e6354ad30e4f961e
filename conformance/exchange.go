package conformance

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// An exchange as the reports show it: one request and its response,
// redacted, a one-line summary, and the full rendering with a curl command
// that reproduces it.

// excerptLimit bounds the request and response bodies shown in a report.
const excerptLimit = 2048

// Exchange is one request and its response as recorded for a report. Every
// exported field is redacted: neither API key appears in it.
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

	// path is the API path, for contract validation.
	path string
	// raw is the whole response body as received (not redacted); it is
	// never rendered, only parsed.
	raw []byte
}

// Raw returns the whole response body as received.
func (x *Exchange) Raw() []byte { return x.raw }

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

// String renders the exchange for a report: request, response and a curl
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

// excerpt is s cut to excerptLimit (shorten), with its length when cut.
func excerpt(s string) string {
	if len(s) <= excerptLimit {
		return s
	}
	return fmt.Sprintf("%s (%d bytes in all)", shorten(s, excerptLimit), len(s))
}
