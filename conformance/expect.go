package conformance

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/internal/textcut"
	"contractkit/judge"
	"contractkit/report"
)

// A check's judging path, in one place, with findings as values. Every
// answer the client reads is judged once by the one judge (package judge,
// the same the explore phase, the reference model's part and the
// validating proxy use) as it is read; a check takes that verdict (verdict)
// and adds what it expects itself (want, expect). Every finding keeps the
// class of the rule it breaks:
//
//   - the judge's findings keep the judge's class (the contract's rule:
//     declared, or a decision's);
//   - a check's own expectation is of the check's rule: declared in a
//     check stating a clause of the reference, decided inside a decided
//     check or refinement (env.decided), with that decision.
//
// What a finding does follows from its class alone (report): a declared
// finding fails the check, whatever the check's class, a SHOULD check's
// included; a decided one is a difference, kept as a value and failing
// only under --strict. What no check took is swept when the check ends
// (sweep), so an answer read anywhere in a check — a poll, a set-up, a
// clean-up, a 429 waited out — is judged too.

// basis is what a check's own expectations rest on: a decision, or the
// clauses of the reference the check states.
type basis struct {
	decision string
	clauses  []string
}

// do sends r and records the exchange. A request the run's budget
// withholds (spending.go) skips the check with the reason.
func (e *env) do(ctx context.Context, r client.Request) *exchange.Exchange {
	GinkgoHelper()
	x := e.client.Do(ctx, r)
	e.withheld(x)
	return x
}

// verdict is the one judge's verdict on x, as taken when the client read
// its answer; the check takes it (the sweep leaves x alone).
func (e *env) verdict(x *exchange.Exchange) judge.Findings { return e.client.Verdict(x) }

// own makes fs the check's own expectation: the class, decision and clause
// of the check's basis.
func (e *env) own(fs judge.Findings) judge.Findings {
	out := make(judge.Findings, len(fs))
	for i, f := range fs {
		f.Side, f.Class, f.Decision, f.Clause = judge.Server, judge.Declared, "", ""
		switch {
		case e.basis.decision != "":
			f.Class, f.Decision = judge.Decided, e.basis.decision
		case len(e.basis.clauses) > 0:
			f.Clause = e.basis.clauses[0]
		}
		if f.Rule == "" {
			f.Rule = judge.RuleCheck
		}
		out[i] = f
	}
	return out
}

// finding is one expectation of a check as a value: at pointer, it wants
// expected and got got (rendered short).
func finding(pointer, expected string, got any) judge.Finding {
	return judge.Finding{Pointer: pointer, Rule: judge.RuleCheck, Expected: expected,
		Got: textcut.Shorten(fmt.Sprint(got), 300)}
}

// want is a check's own expectation on x's answer: when ok is false, it
// breaks the check's rule at pointer (expected, got).
func (e *env) want(x *exchange.Exchange, ok bool, pointer, expected string, got any) {
	GinkgoHelper()
	if !ok {
		e.expect(x, "the answer is not what the check expects", judge.Findings{finding(pointer, expected, got)})
	}
}

// expect reports fs, a check's own expectations on x (what), with the
// class of the check's basis: a decided one ends the decided block it is
// in, whose rest depends on it.
func (e *env) expect(x *exchange.Exchange, what string, fs judge.Findings) {
	GinkgoHelper()
	if len(fs) == 0 {
		return
	}
	e.report(x, what, e.own(fs))
	if e.basis.decision != "" {
		panic(stopDecided{e.basis.decision})
	}
}

// report is where every finding of a check goes, each by its class: the
// decided ones become differences (values), the declared ones of the
// server fail the check, with every finding at once and the exchange that
// shows them. x may be nil (a finding no single exchange shows).
func (e *env) report(x *exchange.Exchange, what string, fs judge.Findings) {
	GinkgoHelper()
	fs = fs.Side(judge.Server)
	if len(fs) == 0 {
		return
	}
	AddReportEntry(entryFindings, fs, ReportEntryVisibilityNever)
	if n := fs.Class(judge.Noted); len(n) > 0 {
		AddReportEntry("noted", strings.Join(n.Lines(), "\n"), ReportEntryVisibilityAlways)
	}
	decided := fs.Class(judge.Decided)
	for _, id := range decided.Decisions() {
		e.difference(x, what, id, decided.Decision(id))
	}
	if declared := fs.Class(judge.Declared); len(declared) > 0 {
		e.fail(x, what, declared)
	}
}

// difference records fs, which differ from decision id, as a value; under
// --strict it fails the check.
func (e *env) difference(x *exchange.Exchange, what, id string, fs judge.Findings) {
	GinkgoHelper()
	name := id
	if name == "" {
		// Every relaxed keyword comes from an x-decision mark, so this is
		// a mark the walk did not reach (on a parameter, say).
		name = "the contract as written"
	}
	if e.cfg.Strict {
		e.fail(x, fmt.Sprintf("[decided %s, failing because of --strict] %s", name, what), fs)
	}
	d := report.Difference{Decision: name, What: what, Findings: fs}
	if x != nil {
		d.Curl, d.Line = x.Curl, x.Line()
	}
	AddReportEntry(entryDecided, d, ReportEntryVisibilityAlways)
}

// fail fails the check with every finding of fs and the exchange that
// shows them.
func (e *env) fail(x *exchange.Exchange, what string, fs judge.Findings) {
	GinkgoHelper()
	var b strings.Builder
	b.WriteString(what)
	b.WriteString(":\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "  - %s\n", f)
	}
	if x != nil {
		AddReportEntry("reproduce", x, ReportEntryVisibilityFailureOrVerbose)
		fmt.Fprintf(&b, "in %s", x.Line())
	}
	Fail(strings.TrimSpace(b.String()))
}

// stopDecided ends the decided block of its decision (env.decided): a
// decided expectation failed, and the rest of the block depends on it.
type stopDecided struct{ decision string }

// decided runs f, whose own expectations rest on decision id rather than a
// rule of the seed. A failed expectation of f is a difference (a value)
// and ends f; under --strict it fails the check. A Gomega assertion of f
// that fails (an Eventually's wait) is a difference too. What the judge
// finds keeps its class: a declared finding fails the check inside f as
// anywhere. Skip, Ginkgo's own Fail and other panics pass through.
func (e *env) decided(id string, f func()) {
	GinkgoHelper()
	prev := e.basis
	e.basis = basis{decision: id}
	defer func() { e.basis = prev }()
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				if s, ok := r.(stopDecided); ok && s.decision == id {
					return
				}
				panic(r)
			}
		}()
		return gomega.InterceptGomegaFailure(f)
	}()
	if err != nil {
		e.difference(nil, "a wait of the decided rule ended unmet", id,
			judge.Findings{{Side: judge.Server, Rule: judge.RuleCheck, Expected: "the awaited state", Got: strings.TrimSpace(err.Error()),
				Class: judge.Decided, Decision: id}})
	}
}

// sweep reports what the judge found in the answers read since the last
// sweep that no check took: every declared finding fails the check that
// was running, every decided one is a difference. It runs when a check
// ends (its last clean-up), and once more at the end of the run (for the
// set-up before the checks, kept aside, and the clean-up after them).
func (e *env) sweep() {
	GinkgoHelper()
	if CurrentSpecReport().State.Is(types.SpecStateSkipped) && e.client != nil {
		// A skipped check cannot fail any more (Ginkgo keeps its state):
		// what it read is reported with the run's clean-up.
		judged, _ := e.client.Sweep()
		e.setupJudged = append(e.setupJudged, judged...)
		if len(judged) > 0 {
			AddReportEntry("judged later", fmt.Sprintf("%d answer(s) read in this skipped check break rules: reported with the run's clean-up", len(judged)), ReportEntryVisibilityAlways)
		}
		return
	}
	e.sweepIn("this check", nil)
}

// sweepIn sweeps and reports, as found in where, what earlier holds (a
// sweep kept aside) and what the client has swept since.
func (e *env) sweepIn(where string, earlier []client.Judged) {
	GinkgoHelper()
	if e.client == nil {
		return
	}
	judged, dropped := e.client.Sweep()
	judged = append(earlier, judged...)
	var declared judge.Findings
	var culprit *exchange.Exchange
	var lines []string
	for _, j := range judged {
		for _, id := range j.Findings.Class(judge.Decided).Decisions() {
			e.difference(j.X, "an answer read in "+where+" differs", id, j.Findings.Class(judge.Decided).Decision(id))
		}
		if d := j.Findings.Class(judge.Declared); len(d) > 0 {
			declared = append(declared, d...)
			if culprit == nil {
				culprit = j.X
			}
			for _, f := range d {
				lines = append(lines, fmt.Sprintf("%s (in %s)", f, j.X.Line()))
			}
		}
	}
	if dropped > 0 {
		AddReportEntry("more findings", fmt.Sprintf("%d further answer(s) with findings were read and not kept", dropped), ReportEntryVisibilityAlways)
	}
	if len(declared) == 0 {
		return
	}
	AddReportEntry(entryFindings, declared, ReportEntryVisibilityNever)
	AddReportEntry("reproduce", culprit, ReportEntryVisibilityFailureOrVerbose)
	Fail("an answer read in " + where + " breaks the declared contract:\n  - " + strings.Join(lines, "\n  - "))
}

// expectSuccess judges a success and returns its data. Declared: a 2xx
// status and what the one judge finds (the envelope of seed §1.1, JSON
// (§1.3), the declared contract). Decided: the contract as written.
func (e *env) expectSuccess(x *exchange.Exchange) judge.J {
	GinkgoHelper()
	e.report(x, "not a conforming success", e.verdict(x))
	if x.Status != 0 {
		e.expect(x, "not a conforming success", judge.Success(x))
	}
	body, _ := judge.ParseJSON(x.Raw)
	return body.Get("data")
}

// expectStream judges an inference answer read by infer against seed
// §4.4: 200, an event stream, and what the one judge finds of it (JSON data
// events, the [DONE] end, a non-empty text; the chunks of D-03, decided).
func (e *env) expectStream(x *exchange.Exchange, s *judge.Stream) {
	GinkgoHelper()
	e.report(x, "not a conforming inference stream", e.verdict(x))
	e.expect(x, "not a conforming inference stream", streamExpected(x, s))
}

// streamExpected is what a stream check expects of an inference answer
// beyond the judge: 200 and text/event-stream.
func streamExpected(x *exchange.Exchange, s *judge.Stream) judge.Findings {
	var fs judge.Findings
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
// refinement.
func (e *env) expectError(x *exchange.Exchange, want refusal) {
	GinkgoHelper()
	fs := e.verdict(x)
	if x.Status != 0 {
		// The status a check asks for is its own rule; what the judge
		// finds keeps its class.
		fs = append(fs, e.own(judge.Status(x, want.statuses...))...)
	}
	e.report(x, "not refused with a conforming error", fs)
	if want.exact != 0 {
		e.decided(want.decision, func() {
			e.expect(x, "refused with another status code", judge.Status(x, want.exact))
		})
	}
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

// entryDecided and entryFindings name the report entries of decided
// differences and of a judgement's findings as values.
const (
	entryDecided  = report.EntryDecided
	entryFindings = report.EntryFindings
)
