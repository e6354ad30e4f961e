package conformance

import (
	"context"
	"io"
	"net/http"
	"time"

	"contractkit/conformance/exchange"

	. "github.com/onsi/ginkgo/v2"
)

// The inference reader: an inference request sent and its answer read as a
// stream (or whole), and the judge of an answer against seed §4.4.

// streamIdle is the longest silence tolerated inside an inference stream.
func (e *env) streamIdle() time.Duration { return min(30*time.Second, e.cfg.Timeout) }

// infer sends an inference request and reads the answer incrementally: a
// stream under the idle limit and --timeout, anything else whole. The
// stream is nil when the answer is not text/event-stream.
func (e *env) infer(ctx context.Context, r Request) (*exchange.Exchange, *Stream) {
	GinkgoHelper()
	if r.Method == "" {
		r.Method, r.Path = http.MethodPost, pathInference
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	resp, x := e.client.Open(ctx, r)
	if resp == nil {
		return x, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && mediaType(resp.Header) == "text/event-stream" {
		s := ReadStream(resp.Body, e.streamIdle(), cancel)
		var readErr error
		if s.Err != nil {
			readErr = s.Err
		}
		e.client.Finish(x, s.Raw, readErr)
		recordTiming(s.timing(x.Duration))
		return x, s
	}
	body, err := io.ReadAll(resp.Body)
	e.client.Finish(x, body, err)
	return x, nil
}

// streamProblems judges an inference answer against seed §4.4: 200, an
// event stream, JSON data events, the [DONE] end, a non-empty text.
func streamProblems(x *exchange.Exchange, s *Stream) []string {
	p := StatusProblems(x, http.StatusOK)
	if x.Status == http.StatusOK {
		p = append(p, contentTypeProblems(x.ResponseHeader, "text/event-stream")...)
	}
	if s != nil {
		p = append(p, s.Problems()...)
	}
	return p
}
