package conformance

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// Every check is an It whose text is its behaviour sentence (RFC 2119
// words), labelled with its area (from its top-level container), the seed
// clauses it tests ("seed:3.1.1") and its class:
//
//   - declared: the rule is the seed's; a server that breaks it fails the run.
//   - decided: the rule is ours (a row of spec/DECISIONS.md, label "D-13");
//     a server that differs is reported "decided: differs" and fails the run
//     only with --strict.
//
// A declared check may also hold decided refinements (the exact status code
// where the seed only says "refused"); they run under env.decided with their
// decision id, and the check carries that id as a label too.
//
// How a decided failure becomes a note: the body (or the refinement) runs
// inside gomega.InterceptGomegaFailure, which swaps Gomega's fail handler,
// stops the body at its first failed assertion and hands the message back
// instead of failing the spec. Without --strict the message is attached as a
// "decided: differs" report entry and the spec passes; with --strict it is
// re-raised with Fail. Skip, Ginkgo's own Fail and panics are not Gomega
// failures and pass through untouched, so a decided check can still be
// skipped with a reason. The suite runs serially, so swapping the global
// handler is safe.

// Class is the class, the seed clauses and the decisions of a check.
type Class struct {
	// Decision is the DECISIONS.md id of a decided check, "" when declared.
	Decision string
	// Clauses are seed clause ids ("3.1.1", "5.3"); see clauses.go.
	Clauses []string
	// Refines are the decision ids of decided refinements in a declared check.
	Refines []string
}

// declared classes a check whose rule the seed states. Arguments are seed
// clause ids, and "D-nn" ids of the decided refinements the check holds.
func declared(clausesAndRefinements ...string) Class {
	var c Class
	for _, s := range clausesAndRefinements {
		if strings.HasPrefix(s, "D-") {
			c.Refines = append(c.Refines, s)
		} else {
			c.Clauses = append(c.Clauses, s)
		}
	}
	return c
}

// decidedBy classes a check whose rule is decision id; clauses are the seed
// clauses whose gap the decision fills.
func decidedBy(id string, clauses ...string) Class {
	return Class{Decision: id, Clauses: clauses}
}

// Labels returns the Ginkgo labels of the class.
func (c Class) Labels() Labels {
	var l Labels
	if c.Decision == "" {
		l = append(l, "declared")
	} else {
		l = append(l, "decided", c.Decision)
	}
	for _, cl := range c.Clauses {
		l = append(l, "seed:"+cl)
	}
	l = append(l, c.Refines...)
	return l
}

// check registers one conformance check.
func (e *env) check(behaviour string, c Class, body func(ctx SpecContext), decorators ...any) bool {
	if len(c.Clauses) == 0 {
		panic(fmt.Sprintf("conformance: check %q names no seed clause", behaviour))
	}
	// Offset(1): the spec's location is the area file that called check.
	args := append([]any{c.Labels(), Offset(1)}, decorators...)
	args = append(args, func(ctx SpecContext) {
		if c.Decision == "" {
			body(ctx)
			return
		}
		e.decided(c.Decision, func() { body(ctx) })
	})
	return It(behaviour, args...)
}

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
func (e *env) expectNone(x *Exchange, what string, problems []string) {
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
func beEmptyProblems(what string, x *Exchange) types.GomegaMatcher {
	return &problemsMatcher{what: what, x: x}
}

type problemsMatcher struct {
	what string
	x    *Exchange
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
