package judge

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"contractkit/exchange"
)

// An exchange is judged in the order it passes: its request (what the
// client broke), its answer's status and headers (a success served to a
// request the declared contract refuses), each event of a stream as it
// comes, and the rest once the answer ended (the content type, the
// envelope of seed §1, the contract declared and decided, the end of a
// stream). A Watch holds one exchange's judgement along that way. The
// validating proxy feeds one as an exchange passes; every other entry
// point calls Verdict, which feeds one the same way with what was read:
// one path, so an exchange gets the same verdict whoever judges it.

// Watch is the judgement of one exchange as it passes. Not safe for
// concurrent use: the exchange's reader feeds it.
type Watch struct {
	j *Judge
	// op is the contract's operationId, "" outside the contract.
	op string
	// client is what the request broke (Side Client).
	client Findings
	// stream judges an event stream's events; nil for any other answer.
	stream *StreamJudge
	// answer is the answer's body as End parsed it.
	answer Parsed
}

// Start judges the request of x (an exchange whose answer has not come
// yet, or has: only the request is read) and returns the watch that
// judges the rest, with the request's findings, every one the client's.
func (j *Judge) Start(x *exchange.Exchange) (*Watch, Findings) {
	op, _, _ := j.Operation(x.Method, x.Path)
	return j.StartOperation(op, x)
}

// StartOperation is Start for a caller that routed the request already:
// op is Operation's answer for it ("" outside the contract).
func (j *Judge) StartOperation(op string, x *exchange.Exchange) (*Watch, Findings) {
	w := &Watch{j: j, op: op}
	w.client = j.Request(op, x)
	return w, w.client
}

// Operation is the exchange's operationId, "" outside the contract.
func (w *Watch) Operation() string { return w.op }

// Headers judges the answer's status and headers, held by x, as they
// arrive: a success to a request the declared contract refuses (Declared,
// the client's findings among Start's) breaks the contract at its first
// byte; a request read only by the contract's lenient readings (Decided)
// may be served. An event stream (IsEventStream) is then judged event by
// event (Event). Call it once, and only when an answer came.
func (w *Watch) Headers(x *exchange.Exchange) Findings {
	if w.op != "" && IsEventStream(x.Status, x.ResponseHeader) {
		w.stream = w.j.newStreamJudge(w.op)
	}
	if x.Status/100 != 2 || !w.client.Has(Client, Declared) {
		return nil
	}
	return Findings{{Operation: w.op, Pointer: RuleStatus, Rule: RuleServedInvalid, Expected: "a refusal (4xx)",
		Got: fmt.Sprintf("%d to a request that breaks %s", x.Status, strings.Join(w.client.Class(Declared).Lines(), "; "))}}
}

// Streaming reports whether the answer is an event stream judged event
// by event.
func (w *Watch) Streaming() bool { return w.stream != nil }

// Event judges one event of a stream (Streaming) and returns what it
// breaks, with the event's chunk (its JSON data) for observers, nil when
// it carries none.
func (w *Watch) Event(ev Event) (Findings, any) {
	if w.stream == nil {
		return nil, nil
	}
	return w.stream.Event(ev)
}

// End judges the rest of the answer once it ended: x holds what was read
// (its body in Raw, Error when the server broke it off or never
// answered). cut says the reader stopped before the end (a bound of its
// own, or a client that left): that is nobody's fault, so a stream is
// judged by the events read and any other answer by its status and
// headers. streamErr is why a stream ended early (the server broke it off,
// or it stalled), nil when it ended. Every finding is the server's.
func (w *Watch) End(x *exchange.Exchange, cut bool, streamErr error) Findings {
	switch {
	case x.Status == 0 && cut:
		return nil // the reader left before any answer
	case x.Status == 0:
		return noAnswer(x).For(w.op)
	case w.stream != nil && cut:
		return nil
	case w.stream != nil:
		return w.stream.End(streamErr)
	case cut:
		return ContentType(x.ResponseHeader, "application/json").For(w.op)
	case x.Error != "":
		// What came is not all the server said: neither the envelope nor
		// the contract can judge it.
		return Findings{{Operation: w.op, Pointer: RuleAnswer, Rule: RuleAnswer, Expected: "the whole answer", Got: x.Error}}
	}
	// The same answer again is judged as it was (cache.go).
	k, cacheable := w.j.keyOf(w.op, x)
	if cacheable {
		if fs, seen := w.j.cache.get(k); seen {
			return fs
		}
	}
	// The answer is parsed once, here: the envelope, the contract and
	// whoever watches the exchange (Answer) read the same value.
	w.answer = Parse(x.Raw)
	var out Findings
	switch {
	case x.Status >= 400:
		out = append(out, ContentType(x.ResponseHeader, "application/json")...)
		out = append(out, envelope(x.Raw, "error", w.answer)...)
	case x.Status/100 == 2:
		out = append(out, ContentType(x.ResponseHeader, "application/json")...)
		out = append(out, envelope(x.Raw, "success", w.answer)...)
	}
	out = append(out, w.j.answerContract(w.op, x, w.answer)...).For(w.op)
	if cacheable && len(out) <= maxCachedFindings {
		w.j.cache.put(k, out)
	}
	return out
}

// Answer is the answer's body as End parsed it (Parsed.OK false when End
// did not parse it, or it is not JSON).
func (w *Watch) Answer() Parsed { return w.answer }

// Verdict is the one judgement of a whole exchange, read: what its request
// breaks and what its answer breaks, the request's findings first. An
// event stream's answer is s, as ReadStream read it (nil for any other
// answer); cut says the reader stopped before the answer's end. It feeds a
// Watch as the answer passed, so it is the proxy's judgement made after
// the fact.
func (j *Judge) Verdict(x *exchange.Exchange, s *Stream, cut bool) Findings {
	w, fs := j.Start(x)
	if x.Status == 0 {
		return append(fs, w.End(x, cut, nil)...)
	}
	fs = append(fs, w.Headers(x)...)
	var streamErr error
	if w.stream != nil && s != nil {
		for _, ev := range s.Events {
			f, _ := w.Event(ev)
			fs = append(fs, f...)
		}
		streamErr = s.Err
	} else if w.stream != nil && x.Error != "" {
		streamErr = errors.New(x.Error)
	}
	return append(fs, w.End(x, cut, streamErr)...)
}

// IsEventStream reports whether an answer is an event stream: 200 and
// text/event-stream, judged event by event.
func IsEventStream(status int, h http.Header) bool {
	return status == http.StatusOK && mediaType(h) == "text/event-stream"
}
