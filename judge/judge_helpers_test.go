package judge

import (
	"net/http"

	"contractkit/exchange"
	"contractkit/spec"
)

// tj is the judge of the embedded contract the package's tests judge with.
var tj = New(spec.Strict(), spec.Declared())

// answerOf is the server's side of x's verdict (its request judged too).
func answerOf(x *exchange.Exchange, cut bool) Findings { return tj.Verdict(x, nil, cut).Side(Server) }

// replay judges s as the answer of a valid inference request, as a reader
// that read it whole (cut: stopped early) passes it to the judge.
func replay(_ string, s *Stream, cut bool) Findings {
	x := &exchange.Exchange{Method: "POST", URL: "http://x/api/v1/user/inference", Path: "/api/v1/user/inference",
		RequestHeader: http.Header{"Authorization": {"Bearer <redacted:api-key>"}, "Content-Type": {"application/json"}},
		Sent:          []byte(`{"query":"q","model_id":1}`),
		Status:        200, ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}}}
	return tj.Verdict(x, s, cut).Side(Server)
}
