package judge

import (
	"fmt"
	"net/http"
	"strings"

	"contractkit/exchange"
)

// Answer judges whether x's answer is allowed for its request, whose
// findings (Request) are req: a success to a request the declared
// contract refuses is the server's violation (Served); an event stream
// (IsEventStream) read as s is judged event by event and at its end
// (StreamJudge); any other answer by its content type, the envelope of a
// success or a refusal (seed §1) and the contract, declared and decided
// (Contract). cut says the reader did not hold the whole answer: a stream
// is judged by the events read, any other answer by its status and
// headers. Every finding is the server's.
func Answer(op string, x *exchange.Exchange, req Findings, s *Stream, cut bool) Findings {
	if x.Status == 0 {
		return noAnswer(x).For(op)
	}
	out := Served(op, x, req)
	switch {
	case s != nil:
		return append(out, replay(op, s, cut)...)
	case x.Error != "":
		// What came is not all the server said: neither the envelope nor
		// the contract can judge it.
		return append(out, Finding{Pointer: RuleAnswer, Rule: RuleAnswer, Expected: "the whole answer", Got: x.Error}).For(op)
	case cut:
		return append(out, ContentType(x.ResponseHeader, "application/json")...).For(op)
	case x.Status >= 400:
		out = append(out, ContentType(x.ResponseHeader, "application/json")...)
		out = append(out, Envelope(x.Raw, "error")...)
	case x.Status/100 == 2:
		out = append(out, ContentType(x.ResponseHeader, "application/json")...)
		out = append(out, Envelope(x.Raw, "success")...)
	}
	return append(out, contractCached(op, x)...).For(op)
}

// Served is what serving x's request says of the server: a success to a
// request the declared contract refuses (a Declared finding of the
// client's among req) breaks the contract. A request read only by the
// contract's lenient readings (Decided) may be served.
func Served(op string, x *exchange.Exchange, req Findings) Findings {
	if x.Status/100 != 2 || !req.Has(Client, Declared) {
		return nil
	}
	return Findings{{Operation: op, Pointer: RuleStatus, Rule: RuleServedInvalid, Expected: "a refusal (4xx)",
		Got: fmt.Sprintf("%d to a request that breaks %s", x.Status, strings.Join(req.Class(Declared).Lines(), "; "))}}
}

// IsEventStream reports whether an answer is an event stream: 200 and
// text/event-stream, judged event by event (StreamJudge).
func IsEventStream(status int, h http.Header) bool {
	return status == http.StatusOK && mediaType(h) == "text/event-stream"
}

// Verdict is the one judgement of a whole exchange: what its request
// breaks (Request) and what its answer breaks (Answer). The suite's
// written checks and its explore phase call it once the answer is read;
// the validating proxy calls its parts in the order an exchange passes
// (Request, then Served and a StreamJudge, or Answer), which is the same
// judgement made as early as it can be.
func Verdict(op string, x *exchange.Exchange, s *Stream, cut bool) Findings {
	req := Request(op, x)
	return append(req, Answer(op, x, req, s, cut)...)
}
