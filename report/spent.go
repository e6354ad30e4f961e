package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// PropertySpent is the JUnit property that carries Spent.Line.
const PropertySpent = "conformance.spent"

// Spent is what a run created, started and removed on the server, per
// kind of the contract's x-cost marks, and what it left behind. Whoever
// keeps the account (the suite's budget ledger) converts it into these
// rows at the end of the run.
type Spent struct {
	// Budget is the cap ("" when none: every kind unlimited).
	Budget string `json:"budget"`
	// Rows are the kinds, in the contract's order, every kind present.
	Rows []SpentRow `json:"rows"`
	// Left names what the run left behind, one item each ("models 21",
	// or a call that got no answer: "models: unknown (...)"); empty when
	// nothing.
	Left []string `json:"left"`
}

// SpentRow is what one kind's account says at the end of a run.
type SpentRow struct {
	Kind string `json:"kind"`
	// Limit is the cap; -1 when the kind is not capped.
	Limit int `json:"limit"`
	// Taken counts the calls the budget paid for (refunds deducted).
	Taken int `json:"taken"`
	// Denied counts the calls refused for want of budget.
	Denied int `json:"denied"`
	// Created, Started and Removed are the ids, in order.
	Created []string `json:"created"`
	Started []string `json:"started"`
	Removed []string `json:"removed"`
	// Unplanned are the created ids made by requests meant to be refused.
	Unplanned []string `json:"unplanned"`
	// Left are the created ids not removed (reused ones excepted); Lost
	// counts the calls that got no answer and may have made one more.
	Left []string `json:"left"`
	Lost int      `json:"lost"`
}

// LeftBehind reports whether the run left something on the server.
func (s *Spent) LeftBehind() bool { return s != nil && len(s.Left) > 0 }

// limitText is the cap as the reports write it.
func (r SpentRow) limitText() string {
	if r.Limit < 0 {
		return "-"
	}
	return fmt.Sprint(r.Limit)
}

// leftText is what the run left behind: "none", or how many and what.
func (s *Spent) leftText() string {
	if len(s.Left) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d: %s", len(s.Left), strings.Join(s.Left, ", "))
}

// Line is the whole account in one line (the JUnit property): "budget
// models=1,...; models 1/1 created 1 started 0 removed 1; ...; left behind:
// none". Kinds the run did not touch and the budget does not cap are left
// out.
func (s *Spent) Line() string {
	budget := s.Budget
	if budget == "" {
		budget = "none"
	}
	parts := []string{"budget " + budget}
	for _, r := range s.Rows {
		if r.Limit < 0 && r.Taken == 0 && r.Denied == 0 && len(r.Created) == 0 && len(r.Started) == 0 {
			continue
		}
		p := fmt.Sprintf("%s %d/%s created %d started %d removed %d", r.Kind, r.Taken, r.limitText(), len(r.Created), len(r.Started), len(r.Removed))
		if r.Denied > 0 {
			p += fmt.Sprintf(" denied %d", r.Denied)
		}
		parts = append(parts, p)
	}
	return strings.Join(append(parts, "left behind: "+s.leftText()), "; ")
}

// WriteTable writes the rows as the summary's aligned table, one kind a
// line, then the line of what was left behind.
func (s *Spent) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "kind\tbudget\ttaken\tcreated\tstarted\tremoved\tdenied\n")
	for _, r := range s.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", r.Kind, r.limitText(), r.Taken, len(r.Created), len(r.Started), len(r.Removed), r.Denied)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "Left behind: "+s.leftText())
	return err
}

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
	fmt.Fprintf(out, "\nWhat the run created, started and removed (budget: %s):\n", budget)
	s.WriteTable(out)
}
