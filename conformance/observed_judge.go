package conformance

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"contractkit/conformance/exchange"
	"contractkit/spec"
)

// The suite's judges applied to exchanges it did not make (the validating
// proxy). Nothing here is a second validator: the request goes through the
// contract's own request checks, the answer through the envelope rules
// (envelope_rules.go), contract (judge.go) and the event stream's judges
// (stream.go), exactly as the suite's checks and its explore phase apply
// them.

// ObservedOperation is the contract operation of a request — its
// operationId and its area (its tag: models, datasets, ...) — or ok=false
// when the request is outside the contract.
func ObservedOperation(method, path string) (id, area string, ok bool) {
	req, err := http.NewRequest(method, "http://contract.invalid"+path, nil)
	if err != nil {
		return "", "", false
	}
	op, _, _, found := spec.Declared().Find(req)
	if !found || op == nil {
		return "", "", false
	}
	area = "other"
	if len(op.Tags) > 0 {
		area = op.Tags[0]
	}
	return op.OperationID, area, true
}

// ClientProblems lists what a request breaks of the declared contract: the
// client's fault, not the server's. body is the whole body, or nil when it
// was not held (then only the parameters are judged); a multipart body is
// left to the server, as the mock leaves it (spec.RequestCheck).
func ClientProblems(opID string, o exchange.Observed) []string {
	var p []string
	if o.RequestHeader.Get("Authorization") == "" {
		p = append(p, "no Authorization header: the request carries no API key (seed §5.1)")
	}
	check := spec.Declared().Request(opID)
	if check == nil {
		return p
	}
	u := "http://contract.invalid" + o.Path
	if o.RawQuery != "" {
		u += "?" + o.RawQuery
	}
	req, err := http.NewRequest(o.Method, u, bytes.NewReader(o.RequestBody))
	if err != nil {
		return append(p, "the request does not parse: "+err.Error())
	}
	req.Header = o.RequestHeader.Clone()
	params := o.RequestBodyCut || mediaType(o.RequestHeader) == "multipart/form-data"
	if bad := bodyTypeProblem(req, o); bad != "" {
		// A body the operation does not take is not validated as one.
		p, params = append(p, bad), true
	}
	if params {
		_, errs := check.ValidateParams(req)
		return append(p, spec.Describe(errs)...)
	}
	_, errs := check.Validate(req)
	return append(p, spec.Describe(errs)...)
}

// bodyTypeProblem says when a request's body comes under a content type
// its operation does not document ("" when it does, or has no body).
func bodyTypeProblem(req *http.Request, o exchange.Observed) string {
	op, _, _, ok := spec.Declared().Find(req)
	if !ok || op.RequestBody == nil || op.RequestBody.Value == nil || (len(o.RequestBody) == 0 && !o.RequestBodyCut) {
		return ""
	}
	content := op.RequestBody.Value.Content
	mt := mediaType(o.RequestHeader)
	if content.Get(mt) != nil {
		return ""
	}
	want := slices.Sorted(maps.Keys(content))
	return fmt.Sprintf("Content-Type %q: the operation takes %s", o.RequestHeader.Get("Content-Type"), strings.Join(want, " or "))
}

// AnswerProblems judges the answer of x (not an event stream) as the
// explore phase judges any answer: the envelope of a success or a refusal
// with its content type, then the contract (declared and decided); a
// success to a request the client got wrong (client non-empty) is the
// server's fault. opID is the operation (ObservedOperation), "" when
// unknown. cut says the body was over the proxy's bound: only its
// status and headers are judged.
func AnswerProblems(x *exchange.Exchange, opID string, client []string, cut bool) (declared []string, decided map[string][]string) {
	if x.Status == 0 {
		return []string{"no answer: " + x.Error}, nil
	}
	if x.Status/100 == 2 && len(client) > 0 {
		declared = append(declared, fmt.Sprintf("served (%d) a request the declared contract refuses: %s", x.Status, strings.Join(client, "; ")))
	}
	if cut {
		declared = append(declared, JSONContentTypeProblems(x.ResponseHeader)...)
		return declared, nil
	}
	switch {
	case x.Status >= 400:
		declared = append(declared, JSONContentTypeProblems(x.ResponseHeader)...)
		declared = append(declared, EnvelopeProblems(x.Raw, "error")...)
	case x.Status/100 == 2:
		declared = append(declared, JSONContentTypeProblems(x.ResponseHeader)...)
		declared = append(declared, EnvelopeProblems(x.Raw, "success")...)
	}
	// An answer the contract as written accepts, the declared view (the
	// same contract with decided constraints removed, spec.Relax) accepts
	// too: the common case costs one validation, not contract's two, and
	// none when the same answer passed before (observed_cache.go).
	if strictPasses(opID, x) {
		return declared, nil
	}
	decl, dec := contract(x)
	return append(declared, decl...), dec
}

// IsEventStream reports whether an answer is an event stream: 200 and
// text/event-stream, judged chunk by chunk by a StreamJudge.
func IsEventStream(status int, h http.Header) bool {
	return status == http.StatusOK && mediaType(h) == "text/event-stream"
}

// streamDecision is the decision that shapes the chunks (InferenceChunk).
const streamDecision = "D-03"

// StreamJudge judges an inference stream event by event as it passes, with
// the suite's stream judges: an event is judged when it is read, the end
// when the stream ends. Not safe for concurrent use: one reader feeds it.
type StreamJudge struct {
	s         Stream
	begin     time.Time
	afterDone bool
}

// NewStreamJudge starts judging a stream whose headers just passed.
func NewStreamJudge() *StreamJudge { return &StreamJudge{begin: time.Now()} }

// Stream is the stream read so far.
func (j *StreamJudge) Stream() *Stream { return &j.s }

// StreamDecision is the decision every decided stream problem belongs to.
func (j *StreamJudge) StreamDecision() string { return streamDecision }

// Event judges one event and returns what it breaks: of the seed's rules
// (declared) or of decision D-03 (decided). The chunk (its JSON data) is
// returned for observers, nil when the event carries none.
func (j *StreamJudge) Event(ev Event) (declared, decided []string, chunk any) {
	switch j.s.Add(ev, time.Since(j.begin)) {
	case EventNotJSON:
		declared = append(declared, fmt.Sprintf("event data is not JSON: %q", shorten(ev.Data, 120)))
	case EventAfterDone:
		if !j.afterDone {
			j.afterDone = true
			declared = append(declared, "an event after `data: [DONE]`")
		}
	case EventChunk:
		chunk = j.s.Chunks[len(j.s.Chunks)-1]
		if p := ChunkProblem(len(j.s.Chunks), chunk); p != "" {
			decided = append(decided, p)
		}
	}
	return declared, decided, chunk
}

// End judges the end of the stream: err is why it ended early (the
// upstream broke or stalled), nil when it ended. The problems each event
// brought were returned by Event and are not repeated.
func (j *StreamJudge) End(err error) (declared, decided []string) {
	j.s.Err = err
	j.s.End = time.Since(j.begin)
	for _, p := range j.s.Problems() {
		if strings.HasPrefix(p, "event data is not JSON") || (j.afterDone && strings.Contains(p, "after `data: [DONE]`")) {
			continue
		}
		declared = append(declared, p)
	}
	if err == nil {
		decided = j.s.ChunkEndProblems()
	}
	return declared, decided
}
