// Package proxy is the validating proxy's core: it forwards a client's
// traffic to a target server unchanged and judges every exchange against
// the contract with the one judge the conformance suite's checks and its
// explore phase call (package judge), prints each finding as it happens,
// hands every exchange to its observers (the seam), and builds the run the
// reports are written from (package report). The command `conformance
// proxy` — its flags, the coverage and recording observers, the reports
// written on stop — is package proxycmd. The core links no test framework,
// no recorder and no flag parsing: a program that embeds it weighs the
// judge and the contract, nothing more.
package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"runtime"
	"sync"
	"time"

	"contractkit/bound"
	"contractkit/judge"
	"contractkit/spec"
)

// MaxHeldRequest bounds the request body held in memory to be judged and
// recorded: the contract's largest body (D-15, its x-request-limits mark;
// today a multipart upload). A larger body is still forwarded whole,
// streamed, but judged by its parameters only and not recorded.
func MaxHeldRequest() int64 {
	l := spec.RequestLimits()
	return max(l.JSONBodyBytes, l.MultipartBodyBytes)
}

// MaxHeldAnswer bounds what is kept of an answer to be judged and recorded:
// a JSON answer over it is forwarded whole but judged by its status and
// headers only; a stream's events are all judged as they pass, and its text
// is kept up to this bound.
const MaxHeldAnswer = 8 << 20

// Proxy forwards to a target and judges what passes. It is an http.Handler.
type Proxy struct {
	target    *url.URL
	rp        *httputil.ReverseProxy
	log       *Log
	observers []Observer
	// inflight counts the exchanges not yet judged; judges hands an
	// ended exchange to an idle judge (judges.go).
	inflight sync.WaitGroup
	judges   judgePool
	// bounds bound every answer (SetBounds); tr is the transport whose
	// header wait they set.
	bounds Bounds
	tr     *http.Transport
	// judge judges every exchange (SetJudge): the one judge, made from
	// the embedded contract unless set.
	judge *judge.Judge
}

// New returns a proxy to target that prints and keeps its findings in lg.
func New(target *url.URL, lg *Log, observers ...Observer) *Proxy {
	p := &Proxy{target: target, log: lg, observers: observers, judges: newJudgePool(2 * runtime.GOMAXPROCS(0)),
		judge: judge.New(spec.Strict(), spec.Declared())}
	tr := boundTransport()
	p.tr = tr
	// The answer passes unchanged: the proxy never asks for a compression
	// the client did not ask for.
	tr.DisableCompression = true
	// One transport for every exchange, its connections to the target
	// kept for the next: as many idle as clients a busy proxy serves, so a
	// burst does not close and dial again (0: no bound over all hosts).
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 0, maxIdlePerTarget
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target) // the Host header too: the target's
		},
		Transport: tr,
		// An event stream, and any answer of unknown length, is flushed at
		// every write (ReverseProxy does so itself for those): it passes
		// as it arrives. An answer of known length is written as it is
		// read and flushed once, at its end, not once per read.
		FlushInterval: 0,
		// The copy buffers are pooled, not one 32 KB buffer per answer.
		BufferPool: copyBuffers{},
		// The proxy reports the errors itself, in its own words.
		ErrorLog:       log.New(io.Discard, "", 0),
		ModifyResponse: modifyResponse,
		ErrorHandler:   errorHandler,
	}
	p.SetBounds(DefaultBounds)
	return p
}

// SetJudge makes j judge every exchange from now on (a judge of another
// contract than the embedded one, say). Call it before serving.
func (p *Proxy) SetJudge(j *judge.Judge) { p.judge = j }

// Wait waits for the exchanges in flight to finish, at most d; it reports
// whether they did.
func (p *Proxy) Wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { p.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// ServeHTTP forwards r and judges the exchange.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.inflight.Add(1)
	defer p.inflight.Done()
	// Full duplex: writing the answer's header must not close the request
	// body while the upstream request may still read it (Go issue 40747,
	// the cause of the cut streams of a plain ReverseProxy). The body is
	// also held in memory below, so the upstream request never reads the
	// client's connection; full duplex covers a body over the bound.
	_ = http.NewResponseController(w).EnableFullDuplex()
	t := newTap(p, r)
	if err := t.holdBody(r); err != nil {
		t.left = true
		t.finish()
		return
	}
	t.judgeRequest()
	// settle runs even when ReverseProxy aborts the answer with
	// http.ErrAbortHandler (the upstream broke mid-body); the panic goes on.
	defer p.settle(t)
	// The target's request ends with the client's, or when a bound cuts
	// the answer (t.cut).
	ctx, cut := context.WithCancel(context.WithValue(r.Context(), tapKey{}, t))
	defer cut()
	t.cut = cut
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

// settle judges an exchange that ended. The judgement (the answer
// validated against the contract) runs after the handler returned, so the
// client's connection is free for its next request at once; when every
// judge is busy it runs here, and the traffic slows rather than piling up.
func (p *Proxy) settle(t *tap) {
	// Whether the client left is read now: the request's context ends
	// with the handler.
	t.left = t.left || (!t.eof && t.ctx.Err() != nil)
	p.inflight.Add(1)
	if !p.judges.hand(t) {
		t.finish()
		p.inflight.Done()
	}
}

// holdBody reads the request body into memory, up to MaxHeldRequest, and
// puts it back for the upstream request; beyond the bound the rest is
// streamed after what was read.
func (t *tap) holdBody(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	held, err := io.ReadAll(io.LimitReader(r.Body, MaxHeldRequest()+1))
	if err != nil {
		return err
	}
	if int64(len(held)) > MaxHeldRequest() {
		t.o.RequestBodyCut = true
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(held), r.Body), r.Body}
		return nil
	}
	t.o.RequestBody = held
	r.Body = io.NopCloser(bytes.NewReader(held))
	r.ContentLength = int64(len(held))
	r.TransferEncoding = nil
	return nil
}

// maxIdlePerTarget bounds the idle connections kept to the target.
const maxIdlePerTarget = 1024

// copyBuffers is ReverseProxy's BufferPool: 32 KB buffers (its own size)
// kept for the next answer.
type copyBuffers struct{}

var copyBufferPool = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func (copyBuffers) Get() []byte { return copyBufferPool.Get().(*[32 << 10]byte)[:] }
func (copyBuffers) Put(b []byte) {
	if len(b) == 32<<10 {
		copyBufferPool.Put((*[32 << 10]byte)(b))
	}
}

type tapKey struct{}

func tapOf(r *http.Request) *tap {
	t, _ := r.Context().Value(tapKey{}).(*tap)
	return t
}

// modifyResponse starts watching the answer as its headers arrive.
func modifyResponse(resp *http.Response) error {
	if t := tapOf(resp.Request); t != nil {
		resp.Body = t.answer(resp)
	}
	return nil
}

// errorHandler answers 502 when the target gave no answer, and notes why.
func errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	if t := tapOf(r); t != nil {
		t.upstreamErr = bound.FromTransport(err)
	}
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return // the client left: nobody to answer
	}
	w.WriteHeader(http.StatusBadGateway)
}
