package conformance

import (
	"context"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/report"
)

// The inference reader: an inference request sent and its answer read as a
// stream (or whole), its timing attached to the check's report.

// streamIdle is the longest silence tolerated inside an inference stream.
func (e *env) streamIdle() time.Duration { return min(30*time.Second, e.cfg.Timeout) }

// infer sends an inference request and reads the answer incrementally: a
// stream under the idle limit and --timeout, anything else whole. The
// stream is nil when the answer is not text/event-stream.
func (e *env) infer(ctx context.Context, r client.Request) (*exchange.Exchange, *judge.Stream) {
	GinkgoHelper()
	if r.Method == "" {
		r.Method, r.Path = http.MethodPost, pathInference
	}
	// The client's stream bound (its duration is --timeout) cuts a stream
	// with its reason, which counts toward a stall; this context, a
	// second later, is the backstop.
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout+time.Second)
	defer cancel()
	x, s := readAnswer(ctx, cancel, e.client, r, e.streamIdle())
	e.withheld(x)
	if s != nil {
		AddReportEntry(report.EntryTiming, s.Timing(x.Duration), ReportEntryVisibilityNever)
	}
	return x, s
}

// readAnswer sends r and reads its answer: an event stream (judge.IsEventStream)
// event by event, giving up after idle without data (cancel, which ends
// ctx, unblocks the read), anything else whole.
func readAnswer(ctx context.Context, cancel context.CancelFunc, c *client.Client, r client.Request, idle time.Duration) (*exchange.Exchange, *judge.Stream) {
	resp, x := c.Open(ctx, r)
	if resp == nil {
		return x, nil
	}
	defer resp.Body.Close()
	if judge.IsEventStream(resp.StatusCode, resp.Header) {
		// The client's stream bound (the same idle limit) cuts a silent
		// stream with its reason; this idle limit, a second later, is only
		// the reader's backstop.
		s := judge.ReadStream(resp.Body, idle+time.Second, cancel)
		c.FinishStream(x, s, false)
		return x, s
	}
	body, err := io.ReadAll(resp.Body) // the client bounds the body (Open)
	c.Finish(x, body, err)
	return x, nil
}
