package conformance

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"contractkit/conformance/exchange"
)

// The envelope rules of seed §1, the content type and the status code, as
// judges. Each returns problems, one readable line each, so a check can
// report every mismatch at once.

// JSONContentTypeProblems checks that the response is application/json; a
// charset (or any) parameter, or none, is accepted.
func JSONContentTypeProblems(h http.Header) []string {
	return contentTypeProblems(h, "application/json")
}

func contentTypeProblems(h http.Header, want string) []string {
	ct := h.Get("Content-Type")
	if ct == "" {
		return []string{fmt.Sprintf("Content-Type: missing, want %s", want)}
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return []string{fmt.Sprintf("Content-Type: %q does not parse: %v", ct, err)}
	}
	if !strings.EqualFold(mt, want) {
		return []string{fmt.Sprintf("Content-Type: %q, want %s", ct, want)}
	}
	return nil
}

// EnvelopeProblems checks body against envelope rule 1 (want "success":
// `{status: "success", data}`) or rule 2 (want "error": `{status: "error",
// message}` with message a string, possibly empty: the reference says only
// "a string" (§1 rule 2, §7)) of seed §1.
func EnvelopeProblems(body []byte, want string) []string {
	v, err := ParseJSON(body)
	if err != nil {
		return []string{fmt.Sprintf("body: not JSON (%v): %q", err, shorten(string(body), 120))}
	}
	obj, ok := v.v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("body: a JSON %s, want an object {status, %s}", jsonKind(v.v), map[string]string{"success": "data", "error": "message"}[want])}
	}
	var p []string
	switch status, ok := obj["status"].(string); {
	case !ok && obj["status"] == nil:
		p = append(p, fmt.Sprintf("$.status: missing, want %q", want))
	case !ok:
		p = append(p, fmt.Sprintf("$.status: a %s, want the string %q", jsonKind(obj["status"]), want))
	case status != want:
		p = append(p, fmt.Sprintf("$.status: %q, want %q", status, want))
	}
	switch want {
	case "success":
		if _, ok := obj["data"]; !ok {
			p = append(p, "$.data: missing (a successful response is {status, data})")
		}
	case "error":
		switch _, ok := obj["message"].(string); {
		case obj["message"] == nil:
			p = append(p, "$.message: missing (a failed response is {status, message})")
		case !ok:
			p = append(p, fmt.Sprintf("$.message: a %s, want a string", jsonKind(obj["message"])))
		}
	}
	return p
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	default:
		return "number"
	}
}

// StatusProblems checks the status code against the allowed ones; with
// none given, any 4xx is allowed.
func StatusProblems(x *exchange.Exchange, allowed ...int) []string {
	if x.Error != "" {
		return []string{"no response: " + x.Error}
	}
	if len(allowed) == 0 {
		if x.Status < 400 || x.Status > 499 {
			return []string{fmt.Sprintf("status: %d, want a 4xx client error", x.Status)}
		}
		return nil
	}
	for _, a := range allowed {
		if x.Status == a {
			return nil
		}
	}
	want := make([]string, len(allowed))
	for i, a := range allowed {
		want[i] = strconv.Itoa(a)
	}
	return []string{fmt.Sprintf("status: %d, want %s", x.Status, strings.Join(want, " or "))}
}
