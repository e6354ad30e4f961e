package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"contractkit/conformance/exchange"
	"contractkit/spec"
)

// A check's judging path, in one place: do sends and records a request;
// the judges (expectSuccess, expectError and its kin, expectThat) split
// what the answer breaks into declared problems, which fail the check
// through expectNone, and decided ones, which go through env.decided with
// the decision that shaped the rule. Each judge reports all its problems
// at once.

// do sends r and records the exchange.
func (e *env) do(ctx context.Context, r Request) *exchange.Exchange {
	GinkgoHelper()
	return e.client.Do(ctx, r)
}

// contract splits the response's mismatches with the contract into declared
// ones (against spec.Declared(), undocumented status codes excepted) and
// decided ones by decision id (against spec.Strict(), and undocumented
// status codes, D-17).
func contract(x *exchange.Exchange) (declaredLines []string, decidedLines map[string][]string) {
	decl := ContractMismatches(spec.Declared(), x)
	strict := ContractMismatches(spec.Strict(), x)
	inDecl := map[string]bool{}
	decidedLines = map[string][]string{}
	for _, m := range decl {
		inDecl[m.Text] = true
		if m.StatusCode {
			decidedLines["D-17"] = append(decidedLines["D-17"], m.Text)
			continue
		}
		declaredLines = append(declaredLines, m.Text)
	}
	for _, m := range strict {
		if inDecl[m.Text] {
			continue
		}
		id := m.Decision
		if id == "" {
			// Every relaxed keyword comes from an x-decision mark, so this
			// is a mark the walk did not reach (on a parameter, say).
			id = "the contract as written"
		}
		decidedLines[id] = append(decidedLines[id], m.Text)
	}
	return declaredLines, decidedLines
}

// judgeDecided reports the decided contract mismatches, one difference per
// decision.
func (e *env) judgeDecided(x *exchange.Exchange, lines map[string][]string) {
	GinkgoHelper()
	ids := make([]string, 0, len(lines))
	for id := range lines {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		e.decided(id, func() {
			e.expectNone(x, "the response differs from the contract as written", lines[id])
		})
	}
}

// expectSuccess judges a success and returns its data. Declared: a 2xx
// status, an application/json body in envelope rule 1 (seed §1.1, §1.3)
// that matches the declared contract. Decided: the contract as written.
func (e *env) expectSuccess(x *exchange.Exchange) J {
	GinkgoHelper()
	var p []string
	switch {
	case x.Error != "":
		p = append(p, "no response: "+x.Error)
	case x.Status < 200 || x.Status > 299:
		p = append(p, fmt.Sprintf("status: %d, want 200", x.Status))
	}
	e.expectEnvelope(x, "success", "not a conforming success", p)
	body, _ := ParseJSON(x.Raw)
	return body.Get("data")
}

// judgeEnvelope fails the check with status (the status's problems), the
// content type, envelope rule kind ("success" or "error") and the
// declared contract's mismatches, all at once; it returns the decided
// mismatches for the caller to judge.
func (e *env) judgeEnvelope(x *exchange.Exchange, kind, what string, status []string) map[string][]string {
	GinkgoHelper()
	p := status
	if x.Error == "" {
		p = append(p, JSONContentTypeProblems(x.ResponseHeader)...)
		p = append(p, EnvelopeProblems(x.Raw, kind)...)
	}
	decl, dec := contract(x)
	p = append(p, decl...)
	e.expectNone(x, what, p)
	return dec
}

// expectEnvelope is judgeEnvelope with the decided mismatches judged.
func (e *env) expectEnvelope(x *exchange.Exchange, kind, what string, status []string) {
	GinkgoHelper()
	e.judgeDecided(x, e.judgeEnvelope(x, kind, what, status))
}

// refusal says how a request must be refused.
type refusal struct {
	// statuses are the declared codes; none means any 4xx.
	statuses []int
	// decision and exact, when set, are a decided refinement: the exact code.
	decision string
	exact    int
}

// expectError judges a refusal: the status, an application/json body in
// envelope rule 2 with a message (seed §1.2, §7), the declared contract;
// then the decided refinement and the contract as written.
func (e *env) expectError(x *exchange.Exchange, want refusal) {
	GinkgoHelper()
	dec := e.judgeEnvelope(x, "error", "not refused with a conforming error", StatusProblems(x, want.statuses...))
	if want.exact != 0 {
		e.decided(want.decision, func() {
			e.expectNone(x, "refused with another status code", StatusProblems(x, want.exact))
		})
	}
	e.judgeDecided(x, dec)
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

// Difference is a decided rule the server does not keep, as attached to the
// report of the check.
type Difference struct {
	Decision string `json:"decision"`
	Message  string `json:"message"`
	// Curl reproduces the exchange that shows the difference, if any.
	Curl string `json:"curl,omitempty"`
}

// String renders the difference for the console and the reports.
func (d Difference) String() string {
	s := fmt.Sprintf("decided: differs (%s, see spec/DECISIONS.md)\n%s", d.Decision, d.Message)
	if d.Curl != "" {
		s += "\nReproduce:\n  " + d.Curl
	}
	return s
}

// entryDecided names the report entries of decided differences.
const entryDecided = "decided: differs"

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
	d := Difference{Decision: id, Message: strings.TrimSpace(err.Error())}
	if e.culprit != nil {
		d.Curl = e.culprit.Curl
	}
	AddReportEntry(entryDecided, d, ReportEntryVisibilityAlways)
}

// expectNone fails the check with every problem at once (and the exchange
// that shows them) when problems is not empty.
func (e *env) expectNone(x *exchange.Exchange, what string, problems []string) {
	if len(problems) == 0 {
		return
	}
	if x != nil {
		e.culprit = x
		AddReportEntry("reproduce", x, ReportEntryVisibilityFailureOrVerbose)
	}
	ExpectWithOffset(1, problems).To(beEmptyProblems(what, x))
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
