package report

import (
	"fmt"
	"io"
	"strings"

	"contractkit/conformance/budget"
)

// EntrySpent names the report entry, on the AfterSuite node, that carries
// what the run created, started and removed per kind: Ginkgo's JSON
// report has it from there.
const EntrySpent = "spent"

// PropertySpent is the JUnit property that carries Spent.Line.
const PropertySpent = "conformance.spent"

// Spent is what a run created, started and removed on the server, per
// kind of the contract's x-cost marks, and what it left behind.
type Spent struct {
	// Budget is the cap ("" when none: every kind unlimited).
	Budget string `json:"budget"`
	// Line is the whole account in one line (the JUnit property).
	Line string `json:"line"`
	// Rows are the kinds, in the contract's order, every kind present.
	Rows []budget.Row `json:"rows"`
	// Left names what the run left behind ("models 21"); empty when
	// nothing.
	Left []string `json:"left"`

	table string
}

// SpentOf reads a ledger at the end of a run.
func SpentOf(l *budget.Ledger) *Spent {
	var b strings.Builder
	l.WriteTable(&b)
	s := &Spent{Budget: l.Budget().String(), Line: l.Line(), Rows: l.Rows(), Left: []string{}, table: b.String()}
	for _, o := range l.Left() {
		s.Left = append(s.Left, o.String())
	}
	return s
}

// LeftBehind reports whether the run left something on the server.
func (s *Spent) LeftBehind() bool { return s != nil && len(s.Left) > 0 }

// writeSpent is the summary's section: the table per kind and the line of
// what was left behind.
func writeSpent(out io.Writer, s *Spent) {
	if s == nil {
		return
	}
	budget := s.Budget
	if budget == "" {
		budget = "none"
	}
	fmt.Fprintf(out, "\nWhat the run created, started and removed (budget: %s):\n%s", budget, s.table)
}
