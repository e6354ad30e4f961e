package conformance

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/report"
)

// A check's judging path, in one place: do sends and records a request;
// verdict asks the one judge (package judge, the same the explore phase
// and the validating proxy ask) what the exchange breaks; the expect
// functions add what the check itself expects (a success, a refusal with
// given codes) and split the server's findings into declared ones, which
// fail the check through expectFindings, and decided ones, which go
// through env.decided with the decision that shaped the rule. Each reports
// every finding at once.

// do sends r and records the exchange. A request the run's budget
// withholds (spending.go) skips the check with the reason.
func (e *env) do(ctx context.Context, r client.Request) *exchange.Exchange {
	GinkgoHelper()
	x := e.client.Do(ctx, r)
	e.withheld(x)
	return x
}

// verdict is the one judge's verdict on x, its answer read whole or, for
// an event stream, as s: the written checks' adapter around judge.Verdict.
func verdict(x *exchange.Exchange, s *judge.Stream) judge.Findings {
	op, _, _ := judge.Operation(x.Method, x.Path)
	return judge.Verdict(op, x, s, false)
}

// judgeServer fails the check with the server's declared findings among fs
// (what) and reports its decided ones, one difference per decision.
func (e *env) judgeServer(x *exchange.Exchange, what string, fs judge.Findings) {
	GinkgoHelper()
	server := fs.Side(judge.Server)
	e.expectFindings(x, what, server.Class(judge.Declared))
	e.judgeDecided(x, server.Class(judge.Decided))
}

// judgeDecided reports decided findings, one difference per decision.
func (e *env) judgeDecided(x *exchange.Exchange, fs judge.Findings) {
	GinkgoHelper()
	for _, id := range fs.Decisions() {
		name := id
		if name == "" {
			// Every relaxed keyword comes from an x-decision mark, so this
			// is a mark the walk did not reach (on a parameter, say).
			name = "the contract as written"
		}
		e.decided(name, func() {
			e.expectFindings(x, "the answer differs from "+name, fs.Decision(id))
		})
	}
}

// expectSuccess judges a success and returns its data. Declared: a 2xx
// status and what the one judge finds (the envelope of seed §1.1, JSON
// (§1.3), the declared contract). Decided: the contract as written.
func (e *env) expectSuccess(x *exchange.Exchange) judge.J {
	GinkgoHelper()
	fs := verdict(x, nil)
	if x.Status != 0 {
		fs = append(fs, judge.Success(x)...)
	}
	e.judgeServer(x, "not a conforming success", fs)
	body, _ := judge.ParseJSON(x.Raw)
	return body.Get("data")
}

// expectStream judges an inference answer read by infer against seed
// §4.4: 200, an event stream, and what the one judge finds of it (JSON data
// events, the [DONE] end, a non-empty text; the chunks of D-03, decided).
func (e *env) expectStream(x *exchange.Exchange, s *judge.Stream) {
	GinkgoHelper()
	e.judgeServer(x, "not a conforming inference stream", streamVerdict(x, s))
}

// streamVerdict is the verdict on an inference answer with what a stream
// check expects: 200 and text/event-stream.
func streamVerdict(x *exchange.Exchange, s *judge.Stream) judge.Findings {
	fs := verdict(x, s)
	if x.Status != 0 {
		fs = append(fs, judge.Status(x, 200)...)
	}
	if x.Status == 200 && s == nil {
		fs = append(fs, judge.ContentType(x.ResponseHeader, "text/event-stream")...)
	}
	return fs
}

// refusal says how a request must be refused.
type refusal struct {
	// statuses are the declared codes; none means any 4xx.
	statuses []int
	// decision and exact, when set, are a decided refinement: the exact code.
	decision string
	exact    int
}

// expectError judges a refusal: the status, what the one judge finds (the
// envelope of seed §1.2 and §7, the declared contract); then the decided
// refinement and the contract as written.
func (e *env) expectError(x *exchange.Exchange, want refusal) {
	GinkgoHelper()
	fs := verdict(x, nil)
	if x.Status != 0 {
		fs = append(fs, judge.Status(x, want.statuses...)...)
	}
	server := fs.Side(judge.Server)
	e.expectFindings(x, "not refused with a conforming error", server.Class(judge.Declared))
	if want.exact != 0 {
		e.decided(want.decision, func() {
			e.expectFindings(x, "refused with another status code", judge.Status(x, want.exact))
		})
	}
	e.judgeDecided(x, server.Class(judge.Decided))
}

// expectRefused: any 4xx with the error envelope is declared; the exact
// code is decision id's.
func (e *env) expectRefused(x *exchange.Exchange, id string, exact int) {
	GinkgoHelper()
	e.expectError(x, refusal{decision: id, exact: exact})
}

// expectNotFound: an unknown or foreign id is refused (declared), with 404
// (D-17).
func (e *env) expectNotFound(x *exchange.Exchange) {
	GinkgoHelper()
	e.expectRefused(x, "D-17", 404)
}

// expectInvalid: invalid input is refused with 400 or 422 and the envelope
// (the seed's codes for bad input, §7), and with 422 (D-17) for a schema
// or semantic violation.
func (e *env) expectInvalid(x *exchange.Exchange) {
	GinkgoHelper()
	e.expectError(x, refusal{statuses: []int{400, 422}, decision: "D-17", exact: 422})
}

// expectThat fails the check, showing x, when a condition on the content
// of a response does not hold; the message says what was expected.
func (e *env) expectThat(x *exchange.Exchange, ok bool, format string, args ...any) {
	GinkgoHelper()
	if !ok {
		e.expectNone(x, "unexpected content", []string{fmt.Sprintf(format, args...)})
	}
}

// How a decided failure becomes a note: the body (or the refinement) runs
// inside gomega.InterceptGomegaFailure, which swaps Gomega's fail handler,
// stops the body at its first failed assertion and hands the message back
// instead of failing the spec. Without --strict the message is attached as a
// "decided: differs" report entry and the spec passes; with --strict it is
// re-raised with Fail. Skip, Ginkgo's own Fail and panics are not Gomega
// failures and pass through untouched, so a decided check can still be
// skipped with a reason. The suite runs serially, so swapping the global
// handler is safe.

// entryDecided and entryFindings name the report entries of decided
// differences and of a judgement's findings as values.
const (
	entryDecided  = report.EntryDecided
	entryFindings = report.EntryFindings
)

// decided runs f, whose assertions check decision id rather than a rule of
// the seed. Without --strict a failure in f ends f and is recorded as a
// difference; with --strict it fails the check.
func (e *env) decided(id string, f func()) {
	e.culprit = nil
	err := InterceptGomegaFailure(f)
	if err == nil {
		return
	}
	if e.cfg.Strict {
		Fail(fmt.Sprintf("[decided %s, failing because of --strict]\n%s", id, err.Error()), 1)
	}
	d := report.Difference{Decision: id, What: strings.TrimSpace(err.Error())}
	if e.culprit != nil {
		d.Curl = e.culprit.Curl
	}
	AddReportEntry(entryDecided, d, ReportEntryVisibilityAlways)
}

// expectFindings fails the check with every finding at once (and the
// exchange that shows them) when fs is not empty; the report carries the
// findings as values too.
func (e *env) expectFindings(x *exchange.Exchange, what string, fs judge.Findings) {
	if len(fs) == 0 {
		return
	}
	AddReportEntry(entryFindings, fs, ReportEntryVisibilityNever)
	e.expectNoneOffset(2, x, what, fs.Lines())
}

// expectNone fails the check with every problem at once (and the exchange
// that shows them) when problems is not empty.
func (e *env) expectNone(x *exchange.Exchange, what string, problems []string) {
	e.expectNoneOffset(2, x, what, problems)
}

func (e *env) expectNoneOffset(offset int, x *exchange.Exchange, what string, problems []string) {
	if len(problems) == 0 {
		return
	}
	if x != nil {
		e.culprit = x
		AddReportEntry("reproduce", x, ReportEntryVisibilityFailureOrVerbose)
	}
	ExpectWithOffset(offset, problems).To(beEmptyProblems(what, x))
}

// beEmptyProblems matches an empty problem list; its failure message lists
// every problem and the request line, nothing else.
func beEmptyProblems(what string, x *exchange.Exchange) types.GomegaMatcher {
	return &problemsMatcher{what: what, x: x}
}

type problemsMatcher struct {
	what string
	x    *exchange.Exchange
}

func (m *problemsMatcher) Match(actual any) (bool, error) {
	p, ok := actual.([]string)
	if !ok {
		return false, fmt.Errorf("problemsMatcher expects []string, got %T", actual)
	}
	return len(p) == 0, nil
}

func (m *problemsMatcher) FailureMessage(actual any) string {
	p, _ := actual.([]string)
	var b strings.Builder
	b.WriteString(m.what)
	b.WriteString(":\n")
	for _, s := range p {
		fmt.Fprintf(&b, "  - %s\n", s)
	}
	if m.x != nil {
		fmt.Fprintf(&b, "in %s", m.x.Line())
	}
	return b.String()
}

func (m *problemsMatcher) NegatedFailureMessage(any) string {
	return m.what + ": expected problems, found none"
}
