package judge

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"contractkit/exchange"
	"contractkit/internal/textcut"
)

// The envelope rules of seed §1, the content type and the status code.
// Each returns every finding at once, so a check reports every mismatch.

// Envelope judges body against envelope rule 1 (kind "success":
// `{status: "success", data}`) or rule 2 (kind "error": `{status: "error",
// message}` with message a string, possibly empty: the reference says only
// "a string", §1 rule 2, §7) of seed §1.
func Envelope(body []byte, kind string) Findings {
	return envelope(body, kind, Parsed{})
}

// envelope is Envelope on a body already parsed (p): one that parsed is
// judged from its value, any other parsed again by ParseJSON, whose error
// the finding quotes. A body json.Unmarshal reads, ParseJSON reads into
// the same objects, arrays and kinds (only a number's Go type differs),
// and the rules read no number.
func envelope(body []byte, kind string, p Parsed) Findings {
	clause, member := "1.1", "data"
	if kind == "error" {
		clause, member = "1.2", "message"
	}
	f := func(pointer, expected, got string) Finding {
		return Finding{Pointer: pointer, Rule: RuleEnvelope, Expected: expected, Got: got, Clause: clause}
	}
	shape := fmt.Sprintf("a JSON object {status, %s}", member)
	v, err := J{p.Value}, error(nil)
	if !p.OK {
		v, err = ParseJSON(body)
	}
	if err != nil {
		return Findings{f("", shape, fmt.Sprintf("not JSON (%v): %q", err, textcut.Shorten(string(body), 120)))}
	}
	obj, ok := v.v.(map[string]any)
	if !ok {
		return Findings{f("", shape, "a JSON "+v.Kind())}
	}
	var out Findings
	switch status, ok := obj["status"].(string); {
	case !ok && obj["status"] == nil:
		out = append(out, f("/status", strconv.Quote(kind), "missing"))
	case !ok:
		out = append(out, f("/status", "the string "+strconv.Quote(kind), "a "+jsonKind(obj["status"])))
	case status != kind:
		out = append(out, f("/status", strconv.Quote(kind), strconv.Quote(textcut.Shorten(status, 80))))
	}
	switch kind {
	case "success":
		if _, ok := obj["data"]; !ok {
			out = append(out, f("/data", "present (a successful response is {status, data})", "missing"))
		}
	case "error":
		switch _, ok := obj["message"].(string); {
		case obj["message"] == nil:
			out = append(out, f("/message", "a string (a failed response is {status, message})", "missing"))
		case !ok:
			out = append(out, f("/message", "a string", "a "+jsonKind(obj["message"])))
		}
	}
	return out
}

// ContentType judges the media type of a body; a charset (or any)
// parameter, or none, is accepted.
func ContentType(h http.Header, want string) Findings {
	f := func(got string) Findings {
		return Findings{{Pointer: "header:Content-Type", Rule: RuleContentType, Expected: want, Got: got, Clause: "1.3"}}
	}
	ct := h.Get("Content-Type")
	if ct == "" {
		return f("missing")
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return f(fmt.Sprintf("%q, which does not parse (%v)", ct, err))
	}
	if !strings.EqualFold(mt, want) {
		return f(strconv.Quote(ct))
	}
	return nil
}

// Status judges the status code of x against the allowed ones; with none
// given, any 4xx is allowed. An exchange without an answer is a finding of
// its own (RuleAnswer).
func Status(x *exchange.Exchange, allowed ...int) Findings {
	if x.Status == 0 {
		return noAnswer(x)
	}
	f := Finding{Pointer: RuleStatus, Rule: RuleStatus, Got: strconv.Itoa(x.Status)}
	if len(allowed) == 0 {
		if x.Status/100 == 4 {
			return nil
		}
		f.Expected = "a 4xx client error"
		return Findings{f}
	}
	want := make([]string, len(allowed))
	for i, a := range allowed {
		if x.Status == a {
			return nil
		}
		want[i] = strconv.Itoa(a)
	}
	f.Expected = strings.Join(want, " or ")
	return Findings{f}
}

// Success judges that x was answered with a 2xx status.
func Success(x *exchange.Exchange) Findings {
	if x.Status == 0 {
		return noAnswer(x)
	}
	if x.Status/100 == 2 {
		return nil
	}
	return Findings{{Pointer: RuleStatus, Rule: RuleStatus, Expected: "a 2xx success", Got: strconv.Itoa(x.Status)}}
}

func noAnswer(x *exchange.Exchange) Findings {
	return Findings{{Pointer: RuleAnswer, Rule: RuleAnswer, Expected: "an answer", Got: "none: " + x.Error}}
}
