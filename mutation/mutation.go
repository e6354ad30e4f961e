// Package mutation proves the conformance suite's power. It holds every
// mutant (one deliberate contract violation: the suite must fail it) and
// every valid variant (behaviour a conforming server may show: the suite
// must pass it) as an HTTP wrapper around an unmodified mock; the mock puts
// one in front of itself with --break NAME. The runner that runs the suite
// against each of them is package mutation/runner (cmd/mutation).
//
// A mutant is built from three kinds of rewriter, all at the HTTP level, so
// the mock itself knows nothing of mutation testing:
//
//   - a request rewriter changes the request before the mock sees it (and may
//     ask the mock questions first, with the client's credentials);
//   - an answer rewriter changes a whole non-stream answer (status, headers,
//     body), which the wrapper buffers;
//   - a stream rewriter sees an event-stream answer write by write and
//     flush by flush, so the stream stays incremental;
//   - a hostile server (Serve) answers one operation itself, below HTTP's
//     manners: a drip, a flood, a reset, headers that never end.
//
// Adding a mutant or a variant is adding one entry to a table: mutants.go
// (the seed's rules), variants.go (liberal servers and decided rules),
// explored.go (the explore phase's), hostile.go (servers that hang, flood
// and drip: apart from List, see Hostile).
package mutation

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Mutant is one deliberate contract violation, or one valid variant.
type Mutant struct {
	Name string
	// Area is the part of the contract it touches ("variant" for a valid one).
	Area string
	// Breaks says what it does, for the report.
	Breaks string
	// Valid marks a variant a conforming server may show: the suite must pass it.
	Valid bool
	// Decided names the decision (spec/DECISIONS.md) a mutant breaks when the
	// rule is ours, not the seed's: the suite reports such a difference and
	// fails it only with --strict, so the mutant is run with --strict.
	Decided string
	// Explore marks a mutant only the explore phase may kill: the run
	// counts as a kill only when every failed check is an Explore check.
	Explore bool
	// Model marks an entry the suite's reference model judges (modelled.go,
	// latitude.go): the runner runs the Explore area only against it, and
	// a kill must be the Explore area's.
	Model bool
	// Hostile marks a server that hangs, floods or drips (hostile.go): the
	// suite must end against it with exit 1 and readable reports, in
	// bounded time and memory. Hostile entries are not in List.
	Hostile bool
	// Clean marks a valid variant whose run must also leave nothing
	// behind: its exit 4 (D-47) fails it, where a mutant's leaves the
	// verdict to its checks.
	Clean bool

	// Request changes x.Req before the wrapped handler gets it.
	Request func(x *Exchange)
	// Answer changes a whole non-stream answer.
	Answer func(x *Exchange, a *Answer)
	// Stream starts the rewriting of one event-stream answer; h are its
	// headers, not yet sent, which it may change.
	Stream func(x *Exchange, h http.Header) StreamFilter
	// Serve may answer the request itself, on w, instead of the wrapped
	// handler (which it may still ask, Exchange.recorded); it reports
	// whether it answered. Only hostile entries answer below HTTP's
	// manners this way; a variant may answer within them (a 429).
	Serve func(x *Exchange, w http.ResponseWriter) bool
}

// Options are what the wrappers need to know of the wrapped server.
type Options struct {
	// Keys are the server's API keys; the first is the one a mutant that
	// accepts any key substitutes.
	Keys []string
}

// Exchange is one request passing through a mutant.
type Exchange struct {
	// Client is the request as the client sent it; answer rewriters match on it.
	Client *http.Request
	// Req is the request the wrapped handler gets: a clone of Client that
	// request rewriters may change.
	Req *http.Request
	// Note carries what a request rewriter learnt to the answer rewriter of
	// the same mutant.
	Note any
	opts Options
	next http.Handler
	// routed is the contract's operation of Client, looked up on first
	// use (operations.go).
	routed route
}

// Answer is a buffered non-stream answer. Header is the live header map.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// StreamOut is the client's side of a stream.
type StreamOut interface {
	Write(p []byte) (int, error)
	Flush() error
}

// StreamFilter rewrites one event stream. A nil field passes through: every
// write unchanged, every flush flushed, nothing added at the end. A filter
// may keep state in its closures: Stream builds one per answer.
type StreamFilter struct {
	// Write gets each write of the handler (normally one event) and writes
	// what the client is to get: nothing, the same, other bytes, or pieces
	// with flushes between.
	Write func(out StreamOut, p []byte) error
	// Flush gets each flush of the handler.
	Flush func(out StreamOut) error
	// End runs when the handler returns; not when it aborts the stream.
	End func(out StreamOut) error
}

// List returns every mutant and valid variant, sorted by name: the
// entries the suite must fail or pass. The hostile servers are apart
// (Hostile).
func List() []Mutant { return sorted(listed()) }

// listed is every table of List, unsorted.
func listed() []Mutant {
	return slices.Concat(mutants, liberal, explored, modelled, latitude, classed, defaulted, inputMutants, unseenMutants, inputVariants, inputLatitude,
		transportMutants, transportVariants, seedFormMutants, seedFormVariants, seedFormLatitude)
}

// Hostile returns the hostile servers, sorted by name. The runner runs
// them after List by default, judged by their own expectation (exit 1,
// readable reports, bounded time and memory), not by a pass or a fail of
// the suite.
func Hostile() []Mutant { return sorted(slices.Clone(hostiles)) }

// Catalog returns every entry --break serves, hostile ones included,
// sorted by name (mockserver --list-mutants).
func Catalog() []Mutant {
	return sorted(append(listed(), hostiles...))
}

func sorted(out []Mutant) []Mutant {
	slices.SortFunc(out, func(a, b Mutant) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Class is what the suite must say of m: "mutant" (fail), "valid"
// (pass), "hostile" (end in bounds with exit 1).
func (m Mutant) Class() string {
	switch {
	case m.Hostile:
		return "hostile"
	case m.Valid:
		return "valid"
	}
	return "mutant"
}

// Lookup returns the entry of the catalog called name.
func Lookup(name string) (Mutant, error) {
	for _, m := range Catalog() {
		if m.Name == name {
			return m, nil
		}
	}
	return Mutant{}, fmt.Errorf("no mutant %q (see mockserver --list-mutants)", name)
}

// Wrapper returns the middleware that serves next with m's rewrites; o
// describes next.
func (m Mutant) Wrapper(o Options) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			x := &Exchange{Client: r, Req: r.Clone(r.Context()), opts: o, next: next}
			if m.Request != nil {
				m.Request(x)
			}
			if m.Serve != nil && m.Serve(x, w) {
				return
			}
			mw := &writer{w: w, x: x, m: &m}
			// A panic (http.ErrAbortHandler: a deliberate cut of a stream)
			// passes through untouched: nothing is finished after it.
			next.ServeHTTP(mw, x.Req)
			mw.finish()
		})
	}
}

// writer buffers non-stream answers whole (they are small) and passes
// event streams through the mutant's filter write by write.
type writer struct {
	w      http.ResponseWriter
	x      *Exchange
	m      *Mutant
	status int
	buf    bytes.Buffer
	stream *StreamFilter
}

func (mw *writer) Header() http.Header { return mw.w.Header() }

func (mw *writer) WriteHeader(code int) {
	if mw.status != 0 || code < 200 {
		return
	}
	mw.status = code
	if strings.HasPrefix(mw.w.Header().Get("Content-Type"), "text/event-stream") {
		f := StreamFilter{}
		if mw.m.Stream != nil {
			f = mw.m.Stream(mw.x, mw.w.Header())
		}
		mw.stream = &f
		mw.w.WriteHeader(code)
	}
}

func (mw *writer) Write(p []byte) (int, error) {
	if mw.status == 0 {
		mw.WriteHeader(http.StatusOK)
	}
	if mw.stream == nil {
		return mw.buf.Write(p)
	}
	var err error
	if mw.stream.Write != nil {
		err = mw.stream.Write(mw.out(), p)
	} else {
		_, err = mw.out().Write(p)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// FlushError is what http.ResponseController.Flush calls: stream flushes go
// through the filter; a buffered answer is flushed whole in finish.
func (mw *writer) FlushError() error {
	if mw.stream == nil {
		return nil
	}
	if mw.stream.Flush != nil {
		return mw.stream.Flush(mw.out())
	}
	return mw.out().Flush()
}

func (mw *writer) Flush() { _ = mw.FlushError() }

// Unwrap lets http.ResponseController reach deadlines on the real writer.
func (mw *writer) Unwrap() http.ResponseWriter { return mw.w }

func (mw *writer) out() StreamOut { return clientOut{mw.w} }

func (mw *writer) finish() {
	if mw.stream != nil {
		if mw.stream.End != nil {
			_ = mw.stream.End(mw.out()) // the handler is done: no one to tell
		}
		return
	}
	a := &Answer{Status: mw.status, Header: mw.w.Header(), Body: mw.buf.Bytes()}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	if mw.x.Req.URL.Path == refusedPath {
		// A request a mutant refused is answered with the status it
		// noted, whatever the mutant's own Answer then does.
		refusedWith(mw.x, a)
	}
	if mw.m.Answer != nil {
		mw.m.Answer(mw.x, a)
	}
	if a.Status == http.StatusNoContent || a.Status == http.StatusNotModified {
		a.Header.Del("Content-Length")
		mw.w.WriteHeader(a.Status)
		return
	}
	a.Header.Set("Content-Length", strconv.Itoa(len(a.Body)))
	mw.w.WriteHeader(a.Status)
	_, _ = mw.w.Write(a.Body) // a client gone: nothing to do
}

// clientOut writes to the real writer and flushes it.
type clientOut struct{ w http.ResponseWriter }

func (c clientOut) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c clientOut) Flush() error                { return http.NewResponseController(c.w).Flush() }
