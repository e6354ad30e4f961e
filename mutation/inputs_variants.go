package mutation

import (
	"mime"
	"net/http"
	"regexp"
	"strings"
)

// Servers that read the same requests another way the contract allows
// (decided rules, D-20, D-48, D-04): the suite must pass them. The first
// differs from the mock where the reference leaves the order of two faults
// open (a decided difference: reported, never failed without --strict);
// the others are where the reference model has latitude (latitude.go): no
// finding at all.
var inputVariants = []Mutant{
	{Name: "valid-precedence-path-first", Area: "variant", Valid: true,
		Breaks: "an evaluation's update or run-ragas looks the evaluation up before it validates the body: an unknown id with an invalid body is 404, not 422 (D-48 decides the other order)",
		Request: func(x *Exchange) {
			if !x.is(opEvaluationWrites) || !x.keyed() {
				return
			}
			if x.ask(http.MethodGet, pathEvaluations()+"/"+x.param("evaluation_id"), nil).Code == http.StatusNotFound {
				refuse(x, http.StatusNotFound)
			}
		}},
}

var inputLatitude = []Mutant{
	{Name: "valid-ids-leading-zeros-refused", Area: "variant", Valid: true, Model: true,
		Breaks: "an id with leading zeros names nothing (404), in the path, the query or a JSON body (D-20 allows it)",
		Request: func(x *Exchange) {
			if !x.keyed() || x.route().kin == nil {
				return
			}
			zeros := false
			for _, v := range x.route().params {
				zeros = zeros || leadingZeros.MatchString(v)
			}
			for _, vs := range x.Req.URL.Query() {
				for _, v := range vs {
					zeros = zeros || leadingZeros.MatchString(v)
				}
			}
			jsonRequest(nil, func(_ *Exchange, body map[string]any) bool {
				for k, v := range body {
					s, ok := v.(string)
					zeros = zeros || ok && strings.HasSuffix(k, "_id") && leadingZeros.MatchString(s)
				}
				return false
			})(x)
			if zeros {
				refuse(x, http.StatusNotFound)
			}
		}},
	{Name: "valid-uuid-any-case", Area: "variant", Valid: true, Model: true,
		Breaks: "a conversation id in upper case names the conversation (UUIDs are read in any case, D-20)",
		Request: func(x *Exchange) {
			if id := x.param("conversation_id"); id != "" && id != strings.ToLower(id) {
				x.Req.URL.Path = strings.Replace(x.Req.URL.Path, id, strings.ToLower(id), 1)
			}
			jsonRequest(opRunInference, func(_ *Exchange, body map[string]any) bool {
				id, ok := body["conversation_id"].(string)
				if ok && id != strings.ToLower(id) {
					body["conversation_id"] = strings.ToLower(id)
					return true
				}
				return false
			})(x)
		}},
	{Name: "valid-accept-charset-honoured", Area: "variant", Valid: true, Model: true,
		Breaks: "an Accept that names a charset is honoured: the answer's Content-Type carries it (application/json; charset=utf-8, text/event-stream; charset=utf-8)",
		Answer: func(x *Exchange, a *Answer) { withCharset(x, a.Header) },
		Stream: func(x *Exchange, h http.Header) StreamFilter {
			withCharset(x, h)
			return StreamFilter{}
		}},
}

// leadingZeros is a number written with a leading zero.
var leadingZeros = regexp.MustCompile(`^0[0-9]+$`)

// withCharset adds the charset the request's Accept names for the
// answer's media type to its Content-Type.
func withCharset(x *Exchange, h http.Header) {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return
	}
	for _, part := range strings.Split(x.Client.Header.Get("Accept"), ",") {
		amt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && amt == mt && params["charset"] != "" {
			h.Set("Content-Type", mime.FormatMediaType(mt, map[string]string{"charset": params["charset"]}))
		}
	}
}
