package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"contractkit/exchange"
	"contractkit/judge"
)

// A tap watches one exchange: the request as the handler held it, the
// answer as ReverseProxy reads it from the target (a copy of each read,
// bounded), and, for an event stream, a judge fed event by event through a
// pipe, so a bad chunk is reported when it passes, not at the end.

type tap struct {
	p     *Proxy
	ctx   context.Context
	start time.Time
	o     exchange.Observed
	// opID and area name the contract operation; inContract is false for
	// a request no operation matches (forwarded, not judged).
	opID, area string
	inContract bool
	// req is the exchange of the request as the judge reads it (its URL
	// and redacted headers), made once; each stage adds its answer
	// (JudgedWithAnswer). Its curl command is made for a finding only.
	req      *exchange.Exchange
	curl     string
	curlOnce sync.Once
	// atHeaders is the exchange as its answer's headers showed it.
	atHeaders *exchange.Exchange
	// watch is the one judge's judgement of the exchange as it passes;
	// verdict gathers what it found (report), for the observers.
	watch   *judge.Watch
	verdict judge.Findings
	vmu     sync.Mutex

	// left: the client went away before the exchange ended.
	left bool
	// upstreamErr: the target gave no answer; readErr: its body broke.
	upstreamErr, readErr error
	eof                  bool
	// length is the answer's Content-Length (-1: unknown), read what
	// passed: an answer read to its length is whole even if the client
	// left before the read that would have returned io.EOF.
	length, read int64
	body         bytes.Buffer
	bodyCut      bool
	stream       *streamTap
	once         sync.Once
	// cut ends the target's request: a bound reached (Bounds).
	cut context.CancelFunc
}

// streamTap feeds an event stream's events to the watch as they pass.
type streamTap struct {
	pw   *io.PipeWriter
	done chan struct{}
	// x is the exchange as its headers showed it: the findings' replay.
	x *exchange.Exchange
}

func newTap(p *Proxy, r *http.Request) *tap {
	t := &tap{p: p, ctx: r.Context(), start: time.Now()}
	t.o = exchange.Observed{
		Method: r.Method, Target: p.target.String(),
		Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		// The client's header map, not a copy: ReverseProxy forwards a
		// clone of the request (its own Rewrite and hop-by-hop removal
		// change the clone), and nothing changes r.Header after.
		RequestHeader: r.Header,
	}
	t.opID, t.area, t.inContract = p.judge.Operation(r.Method, r.URL.Path)
	return t
}

// judgeRequest reports, at once, what the request breaks of the contract:
// the client's fault.
func (t *tap) judgeRequest() {
	if !t.inContract {
		return
	}
	x := t.request()
	w, fs := t.p.judge.StartOperation(t.opID, x)
	t.watch = w
	t.report(fs, x)
}

// request is the exchange of the request alone, made once.
func (t *tap) request() *exchange.Exchange {
	if t.req == nil {
		t.req = t.o.Judged()
	}
	return t.req
}

// curlOf is the curl command of the exchange's request, made once, when a
// finding is reported.
func (t *tap) curlOf() string {
	t.curlOnce.Do(func() { t.curl = t.o.CurlOf() })
	return t.curl
}

// report prints and keeps the findings about x.
func (t *tap) report(fs judge.Findings, x *exchange.Exchange) {
	if len(fs) == 0 {
		return
	}
	t.vmu.Lock()
	t.verdict = append(t.verdict, fs...)
	t.vmu.Unlock()
	line := x.Line()
	if x.Status == 0 && x.Error == "" {
		line = x.Method + " " + x.URL // the request alone: no answer yet
	}
	for _, f := range fs {
		t.p.log.Add(Finding{Finding: f, Area: t.area, Line: line, Curl: t.curlOf()})
	}
}

// answer starts watching an answer whose headers just arrived and returns
// the body ReverseProxy is to read.
func (t *tap) answer(resp *http.Response) io.ReadCloser {
	t.o.Status = resp.StatusCode
	// The target's header map, not a copy: ReverseProxy has removed its
	// hop-by-hop headers already and only copies it to the client's
	// answer from here on; nothing changes it after.
	t.o.ResponseHeader = resp.Header
	t.length = resp.ContentLength
	if t.length > 0 {
		t.body.Grow(int(min(t.length, MaxHeldAnswer)))
	}
	stream := judge.IsEventStream(resp.StatusCode, resp.Header)
	if t.inContract {
		// Served: a success to a request the declared contract refuses
		// is known at its first byte.
		x := t.o.JudgedWithAnswer(t.request())
		t.atHeaders = x
		t.report(t.watch.Headers(x), x)
		if t.watch.Streaming() {
			t.startStream(x)
		}
	}
	cut := t.cut
	if cut == nil {
		cut = func() {}
	}
	return &tapReader{t: t, body: boundedBody(resp.Body, t.p.bounds.limits(stream), cut)}
}

func (t *tap) startStream(x *exchange.Exchange) {
	pr, pw := io.Pipe()
	s := &streamTap{pw: pw, done: make(chan struct{}), x: x}
	t.stream = s
	go func() {
		defer close(s.done)
		_ = judge.ReadEvents(pr, func(ev judge.Event) bool {
			fs, chunk := t.watch.Event(ev)
			t.report(fs, s.x)
			if chunk != nil {
				for _, ob := range t.p.observers {
					ob.ObserveEvent(t.o.Method, t.o.Path, []byte(ev.Data))
				}
			}
			return true
		})
		// A reader that stopped early (an event over the parser's bound)
		// must not leave the proxy's writes blocked.
		_, _ = io.Copy(io.Discard, pr)
	}()
}

// keep copies what passed, up to MaxHeldAnswer, and feeds a stream's judge.
func (t *tap) keep(p []byte) {
	room := MaxHeldAnswer - t.body.Len()
	if len(p) > room {
		t.bodyCut = true
	}
	if room > 0 {
		t.body.Write(p[:min(room, len(p))])
	}
	if t.stream != nil {
		_, _ = t.stream.pw.Write(p)
	}
}

type tapReader struct {
	t    *tap
	body io.ReadCloser
}

func (r *tapReader) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	if n > 0 {
		r.t.keep(p[:n])
		r.t.read += int64(n)
	}
	if err == io.EOF || r.t.length >= 0 && r.t.read == r.t.length {
		r.t.eof = true
	}
	if err != nil && err != io.EOF && !r.t.eof && r.t.readErr == nil {
		r.t.readErr = err
	}
	return n, err
}

func (r *tapReader) Close() error { return r.body.Close() }

// finish judges the exchange once it ended, then hands it to the observers.
func (t *tap) finish() { t.once.Do(t.judgeEnd) }

func (t *tap) judgeEnd() {
	if t.stream != nil {
		t.stream.pw.Close()
		<-t.stream.done
	}
	left := t.left
	o := t.o
	o.ResponseBody = t.body.Bytes()
	o.Duration = time.Since(t.start)
	switch {
	case left:
		o.Error = "the client left before the answer ended"
	case t.upstreamErr != nil:
		o.Status, o.Error = 0, "the target gave no answer: "+t.upstreamErr.Error()
	case t.readErr != nil:
		o.Error = "reading the answer: " + t.readErr.Error()
	}
	encoded := false
	if ce := strings.ToLower(o.ResponseHeader.Get("Content-Encoding")); ce != "" && ce != "identity" && o.Status != 0 {
		o.ResponseBody, encoded = decoded(ce, o.ResponseBody, t.bodyCut)
	}
	x := o.JudgedAtEnd(t.request(), t.atHeaders)
	defer t.observe(o, left)
	if !t.inContract {
		t.p.log.Outside()
		return
	}
	t.p.log.Exchange(t.opID, t.area, left)
	if t.watch == nil {
		// The client left while its request was still coming: there is
		// no request to judge, nor an answer.
		t.p.log.Note("LEFT %s: the client left before its request ended; not judged | %s", t.opID, x.Line())
		return
	}
	switch {
	case left:
		t.p.log.Note("LEFT %s: the client left before the answer ended; the target's request was stopped; judged by what passed | %s", t.opID, x.Line())
	case t.stream == nil && t.bodyCut && o.Status != 0:
		t.p.log.Note("NOTE %s: an answer over %d bytes: judged by its status and headers only | %s", t.opID, MaxHeldAnswer, x.Line())
	}
	// A stream's events were all judged as they passed (held or not); any
	// other answer is whole only when it was held whole and read plainly.
	cut := left || t.stream == nil && (t.bodyCut || encoded)
	t.report(t.watch.End(x, cut, t.readErr), x)
}

// decoded returns a gzip answer's body decoded for judging; any other
// encoding, or a body cut short, is not judged (encoded true).
func decoded(encoding string, body []byte, cut bool) ([]byte, bool) {
	if encoding != "gzip" || cut {
		return body, true
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return body, true
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxHeldAnswer))
	if err != nil {
		return body, true
	}
	return out, false
}

// observe hands the finished exchange to every observer.
func (t *tap) observe(o exchange.Observed, left bool) {
	if len(t.p.observers) == 0 {
		return
	}
	t.vmu.Lock()
	verdict := t.verdict
	t.vmu.Unlock()
	x := &Exchange{Observed: o, Operation: t.opID, ResponseBodyCut: t.bodyCut,
		Stream: t.stream != nil, LeftByClient: left, Verdict: verdict}
	if t.watch != nil {
		x.Answer = t.watch.Answer()
	}
	if !t.inContract {
		x.Operation = ""
	}
	for _, ob := range t.p.observers {
		ob.Observe(x)
	}
}
