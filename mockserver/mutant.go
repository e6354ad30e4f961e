package mockserver

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// mutant is one deliberate contract violation (mockserver --break NAME), used
// to prove that the conformance suite fails a server that breaks the
// contract. Each mutant sets the hooks it needs; the list is in mutants.go.
type mutant struct {
	Name   string
	Area   string
	Breaks string
	// Valid marks a variant a conforming server may show: the suite must pass it.
	Valid bool
	// Decided names the decision (spec/DECISIONS.md) a mutant breaks when
	// the rule is ours, not the seed's: the suite reports such a difference
	// and fails it only with --strict, so the mutant is run with --strict.
	Decided string

	// Request changes a request before anything else sees it.
	Request func(r *http.Request)
	// Wrap replaces the handler of an operation.
	Wrap func(op string, next handler) handler
	// AcceptKey lets a request through authentication despite err.
	AcceptKey func(r *http.Request, err error) bool
	// SkipValidation lets a request through validation despite err.
	SkipValidation func(c *call, err error) bool
	// Rewrite changes a whole non-stream answer: status, headers and body.
	Rewrite func(r *http.Request, status int, h http.Header, body []byte) (int, []byte)
	// Stream changes one write of an event stream (one event, normally);
	// n counts the writes. It may block (a stall) until r's context ends.
	Stream func(r *http.Request, n int, h http.Header, p []byte) []byte
}

// Mutant describes one mutant for listings (make mutation).
type Mutant struct {
	Name, Area, Breaks, Decided string
	Valid                       bool
}

// Mutants lists every mutant and valid variant, sorted by name.
func Mutants() []Mutant {
	var out []Mutant
	for _, m := range mutants {
		out = append(out, Mutant{Name: m.Name, Area: m.Area, Breaks: m.Breaks, Decided: m.Decided, Valid: m.Valid})
	}
	slices.SortFunc(out, func(a, b Mutant) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func lookupMutant(name string) (*mutant, error) {
	if name == "" {
		return nil, nil
	}
	for _, m := range mutants {
		if m.Name == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("--break %q: no such mutant (see --list-mutants)", name)
}

func (m *mutant) wrapHandlers(hs map[string]handler) {
	if m == nil || m.Wrap == nil {
		return
	}
	for op, h := range hs {
		hs[op] = m.Wrap(op, h)
	}
}

func (m *mutant) skipsAuth(r *http.Request, err error) bool {
	return m != nil && m.AcceptKey != nil && m.AcceptKey(r, err)
}

func (m *mutant) skipsValidation(c *call, err error) bool {
	return m != nil && m.SkipValidation != nil && m.SkipValidation(c, err)
}

// wrap returns a writer that applies the mutant's rewrites. JSON answers are
// buffered whole (they are small) and rewritten in finish; event streams are
// rewritten write by write so they stay incremental.
func (m *mutant) wrap(w http.ResponseWriter, r *http.Request) *mutantWriter {
	return &mutantWriter{w: w, r: r, m: m}
}

type mutantWriter struct {
	w      http.ResponseWriter
	r      *http.Request
	m      *mutant
	status int
	buf    bytes.Buffer
	stream bool
	n      int
}

func (mw *mutantWriter) Header() http.Header { return mw.w.Header() }

func (mw *mutantWriter) WriteHeader(code int) {
	if mw.status != 0 {
		return
	}
	mw.status = code
	if strings.HasPrefix(mw.w.Header().Get("Content-Type"), "text/event-stream") {
		mw.stream = true
		if mw.m.Stream != nil {
			mw.m.Stream(mw.r, -1, mw.w.Header(), nil) // lets a mutant change stream headers
		}
		mw.w.WriteHeader(code)
	}
}

func (mw *mutantWriter) Write(p []byte) (int, error) {
	if mw.status == 0 {
		mw.WriteHeader(http.StatusOK)
	}
	if !mw.stream {
		return mw.buf.Write(p)
	}
	out := p
	if mw.m.Stream != nil {
		out = mw.m.Stream(mw.r, mw.n, mw.w.Header(), p)
		mw.n++
	}
	if _, err := mw.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes stream flushes through; JSON answers flush in finish.
func (mw *mutantWriter) Flush() {
	if f, ok := mw.w.(http.Flusher); ok && mw.stream {
		f.Flush()
	}
}

func (mw *mutantWriter) finish() {
	if mw.stream || mw.status == 0 {
		return
	}
	status, body := mw.status, mw.buf.Bytes()
	if mw.m.Rewrite != nil {
		status, body = mw.m.Rewrite(mw.r, status, mw.w.Header(), body)
	}
	mw.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	mw.w.WriteHeader(status)
	_, _ = mw.w.Write(body)
}
