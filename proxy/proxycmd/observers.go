package proxycmd

import (
	"contractkit/coverage"
	"contractkit/proxy"
	"contractkit/recording"
)

// The two observers the command wires (the core's Observer is the seam):
// the contract coverage of the traffic, and its recording as fixtures.

// CoverageObserver feeds a coverage.Recorder: every answer's status and
// fields, and every stream chunk as it passes.
type CoverageObserver struct{ R *coverage.Recorder }

// Observe records the answer of x. A stream's chunks were recorded as
// they passed (ObserveEvent), so only its status is recorded here; an
// answer cut at the proxy's bound or by a client that left shows its
// status, not its fields.
func (c CoverageObserver) Observe(x *proxy.Exchange) {
	if x.Status == 0 {
		return
	}
	body := x.ResponseBody
	if x.Stream || x.ResponseBodyCut || x.LeftByClient {
		body = nil
	}
	// The judge routed the request and parsed the answer already: the
	// coverage reads the same.
	c.R.ObserveParsed(x.Operation, x.Method, x.Path, x.Status, x.ResponseHeader.Get("Content-Type"), body, x.Answer.Value, x.Answer.OK)
}

// ObserveEvent records one chunk of a stream.
func (c CoverageObserver) ObserveEvent(method, path string, data []byte) {
	c.R.ObserveEvent(method, path, data)
}

// RecordingObserver feeds a recording.Recorder with the whole exchanges:
// one the client left, one without an answer, or one with a body over the
// proxy's bounds is not recorded (its state would be a guess).
type RecordingObserver struct{ R *recording.Recorder }

// Observe records x when it is whole.
func (o RecordingObserver) Observe(x *proxy.Exchange) {
	if x.Status == 0 || x.LeftByClient || x.RequestBodyCut || x.ResponseBodyCut {
		return
	}
	o.R.Observe(recording.Exchange{
		Method: x.Method, Path: x.Path, RawQuery: x.RawQuery,
		RequestHeader: x.RequestHeader, RequestBody: x.RequestBody,
		Status: x.Status, ResponseHeader: x.ResponseHeader, ResponseBody: x.ResponseBody,
		Verdict: x.Verdict, Judged: true,
	})
}

// ObserveEvent: the recorder reads a stream from its whole text.
func (RecordingObserver) ObserveEvent(string, string, []byte) {}
