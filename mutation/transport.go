package mutation

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"contractkit/spec"
)

// transportMutants are servers that read a request carried another way
// than the suite's plain one as another request: a body sent chunked or
// after Expect: 100-continue, a space in a query written as +, a path id
// percent-encoded (RFC 9110, RFC 3986; D-49), text outside the Basic
// Multilingual Plane, and a name checked against evaluations in one state
// only or in one letter case (D-19). The reference model's input
// dimensions (conformance/inputs) send each; like the input mutants they
// run with the Explore area only (Model).
var transportMutants = []Mutant{
	// ---- how a body is carried (RFC 9112 §6, RFC 9110 §10.1.1) ----
	{Name: "transport-chunked-body-empty", Area: "model", Model: true,
		Breaks: "a JSON body sent with Transfer-Encoding: chunked (no Content-Length: fetch with a stream, curl -T -, Node's http.request, Python generators) is read as empty (a parser that reads Content-Length bytes)",
		Request: func(x *Exchange) {
			if x.Req.ContentLength < 0 && isJSONType(x) && x.keyed() {
				emptyBody(x)
			}
		}},
	{Name: "transport-expect-continue-417", Area: "model", Model: true,
		Breaks:  "a request that asks Expect: 100-continue (curl's default for a body over 1 KiB, .NET's HttpClient) is refused 417 Expectation Failed (a proxy that does not pass the expectation on)",
		Request: refuseKeyed(http.StatusExpectationFailed, expectsContinue)},
	{Name: "transport-expect-continue-body-ignored", Area: "model", Model: true,
		Breaks: "a request that asks Expect: 100-continue is answered at once, its body never read (a handler that answers before the client was told to continue reads an empty body)",
		Request: func(x *Exchange) {
			if expectsContinue(x) && x.keyed() && x.route().kin != nil {
				emptyBody(x)
			}
		}},

	// ---- how a request's text and ids are spelt (RFC 3986) ----
	{Name: "transport-query-plus-literal", Area: "model", Model: true,
		Breaks: "a + in a query string is read as a literal plus, not a space (a query parser written for RFC 3986 alone, not the form encoding every HTTP client writes): ?name=Quality+check is the name \"Quality+check\"",
		Request: func(x *Exchange) {
			if x.route().kin != nil && strings.Contains(x.Req.URL.RawQuery, "+") {
				x.Req.URL.RawQuery = strings.ReplaceAll(x.Req.URL.RawQuery, "+", "%2B")
			}
		}},
	{Name: "transport-path-id-escaped-404", Area: "model", Model: true,
		Breaks: "a path id written percent-encoded (/model/%34 for 4, as a client that escapes every character writes it) is not found (404): the router matches the raw path against [0-9]+",
		Request: func(x *Exchange) {
			if raw := x.Client.URL.RawPath; raw != "" && strings.Contains(raw, "%") && x.route().kin != nil && len(x.route().params) > 0 {
				refuse(x, http.StatusNotFound)
			}
		}},
	{Name: "text-cut-outside-bmp", Area: "model", Model: true,
		Breaks:  "the evaluations' table keeps text in three-byte UTF-8 (MySQL's utf8mb3, non-strict; the other tables are utf8mb4): every text an evaluation's create or update writes is kept cut at its first character outside the Basic Multilingual Plane (an emoji, a mathematical letter) and read back so; the write's own answer shows the text as sent (the object the handler was given, not the row)",
		Request: cutOutsideBMP,
		Answer: func(x *Exchange, a *Answer) {
			if sent, ok := x.Note.(map[string]string); ok {
				jsonAnswer(func(_ *Exchange, _ int, v any) any {
					return walkJSON(v, func(_ string, v any) any {
						if s, ok := v.(string); ok && sent[s] != "" {
							return sent[s]
						}
						return v
					})
				})(x, a)
			}
		}},

	// ---- whose names check-name sees (D-19) ----
	{Name: "name-check-pending-only", Area: "model", Model: true, Decided: "D-19",
		Breaks: "check-name looks the name up among pending evaluations only (the drafts table): a name held only by a running, completed or failed evaluation is reported available",
		Answer: nameCheck(func(held []any, name string) bool {
			for _, e := range held {
				if dig(e, "status") == "pending" {
					return true
				}
			}
			return false
		})},
	{Name: "name-check-case-sensitive", Area: "model", Model: true, Decided: "D-19",
		Breaks: "check-name compares names case-sensitively: a name taken in another letter case is reported available (the create still refuses it)",
		Answer: nameCheck(func(held []any, name string) bool {
			for _, e := range held {
				if n, _ := dig(e, "name").(string); strings.TrimSpace(n) == strings.TrimSpace(name) {
					return true
				}
			}
			return false
		})},
}

// transportVariants are servers that carry requests another way the
// reference allows: the suite must pass them (Model: no finding at all).
var transportVariants = []Mutant{
	{Name: "valid-chunked-length-required", Area: "variant", Valid: true, Model: true,
		Breaks: "a body sent without Content-Length (chunked) is refused 411 Length Required, which RFC 9112 §6.3 lets a server do; every other request is served",
		Request: func(x *Exchange) {
			if x.Req.ContentLength < 0 && x.route().kin != nil && x.keyed() {
				refuse(x, http.StatusLengthRequired)
			}
		}},
}

var (
	opCheckEvaluationName = ops(spec.OpCheckEvaluationName)
	// opThreeByteTables write the table text-cut-outside-bmp keeps in
	// three-byte UTF-8: evaluations.
	opThreeByteTables = ops(spec.OpCreateEvaluation, spec.OpUpdateEvaluation)
)

// expectsContinue reports whether the client asked Expect: 100-continue.
func expectsContinue(x *Exchange) bool {
	return strings.EqualFold(strings.TrimSpace(x.Client.Header.Get("Expect")), "100-continue")
}

// emptyBody makes the request the mock gets carry no body.
func emptyBody(x *Exchange) {
	if x.Req.Body != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(x.Req.Body, maxRewrittenBody()))
	}
	x.Req.Body, x.Req.ContentLength = http.NoBody, 0
	x.Req.TransferEncoding = nil
	x.Req.Header.Del("Content-Length")
}

// beforePlane1 cuts s at its first character outside the Basic
// Multilingual Plane (a four-byte UTF-8 sequence).
func beforePlane1(s string) string {
	for i, r := range s {
		if r > 0xFFFF {
			return s[:i]
		}
	}
	return s
}

// cutOutsideBMP cuts every text of the JSON body of a write of the
// evaluations' table at its first character outside the BMP; x.Note keeps
// what each cut text was sent as.
func cutOutsideBMP(x *Exchange) {
	if x.route().kin == nil || !x.keyed() || !x.is(opThreeByteTables) {
		return
	}
	sent := map[string]string{}
	x.Note = sent
	beforePlane1 := func(s string) string {
		c := beforePlane1(s)
		if c != s && c != "" {
			sent[c] = s
		}
		return c
	}
	mt, _, _ := mime.ParseMediaType(x.Req.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		rewriteJSONBytes(func(b []byte) []byte {
			v, ok := decode(b)
			if !ok {
				return b
			}
			out, err := json.Marshal(walkJSON(v, func(_ string, x any) any {
				if s, ok := x.(string); ok && utf8.ValidString(s) {
					return beforePlane1(s)
				}
				return x
			}))
			if err != nil {
				return b
			}
			return out
		})(x)
	}
}

// nameCheck rewrites a check-name answer that says a name is taken into
// one that says it is free unless sees, given the account's evaluations
// holding the name (case-insensitively, as the mock holds it), finds one.
func nameCheck(sees func(held []any, name string) bool) answerFunc {
	return onOperation(opCheckEvaluationName, jsonAnswer(func(x *Exchange, status int, v any) any {
		d, ok := dig(v, "data").(map[string]any)
		if status != http.StatusOK || !ok || d["available"] != false || d["valid"] != true {
			return v
		}
		name := x.Req.URL.Query().Get("name")
		var held []any
		for page := 1; page <= 50; page++ {
			data, _ := x.askData(pathEvaluations() + "?" + url.Values{"per_page": {"100"}, "page": {strconv.Itoa(page)}}.Encode())
			list, _ := dig(data, "evaluations").([]any)
			for _, e := range list {
				if n, _ := dig(e, "name").(string); strings.EqualFold(strings.TrimSpace(n), strings.TrimSpace(name)) {
					held = append(held, e)
				}
			}
			if len(list) < 100 {
				break
			}
		}
		if len(held) > 0 && !sees(held, name) {
			d["available"], d["message"] = true, "Name is available"
		}
		return v
	}))
}
