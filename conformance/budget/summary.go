package budget

import (
	"fmt"
	"strings"

	"contractkit/spec"
)

// Row is what one kind's account says at the end of a run; the suite
// converts the rows into the reports' (report.SpentRow), which render them.
type Row struct {
	Kind Kind `json:"kind"`
	// Limit is the cap; -1 when the kind is not capped.
	Limit int `json:"limit"`
	// Taken counts the calls the budget paid for (refunds deducted).
	Taken int `json:"taken"`
	// Denied counts the calls refused for want of budget: each is a
	// skipped check, or a draw the explore phase did not make.
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

// Rows returns a row per kind, in spec.CostKinds order, every kind
// present (a run that spent nothing shows zeros).
func (l *Ledger) Rows() []Row {
	l.mu.Lock()
	defer l.mu.Unlock()
	rows := make([]Row, 0, len(spec.CostKinds()))
	for _, k := range kindsInOrder() {
		row := Row{Kind: k, Limit: -1, Created: []string{}, Started: []string{}, Removed: []string{}, Unplanned: []string{}, Left: []string{}}
		if n, limited := l.budget.Limit(k); limited {
			row.Limit = n
		}
		if t := l.kinds[k]; t != nil {
			row.Taken, row.Denied, row.Lost = t.taken, t.denied, t.lost
			row.Created = append(row.Created, t.created...)
			row.Started = append(row.Started, t.started...)
			row.Removed = append(row.Removed, t.removed...)
			row.Unplanned = append(row.Unplanned, t.unplanned...)
			row.Left = append(row.Left, t.leftIDs(k, l.reused)...)
		}
		rows = append(rows, row)
	}
	return rows
}

func kindsInOrder() []Kind { return spec.CostKinds() }

// limitText is the cap as the reports write it.
func (r Row) limitText() string {
	if r.Limit < 0 {
		return "-"
	}
	return fmt.Sprint(r.Limit)
}

// leftText is what the row left behind: ids, and calls without an answer.
func (r Row) leftText() string {
	parts := append([]string(nil), r.Left...)
	if r.Lost > 0 {
		parts = append(parts, fmt.Sprintf("%d unknown (no answer)", r.Lost))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// String is the row in one line: "models: budget 1, taken 1, created 1,
// started 0, removed 1, denied 2, left behind: none".
func (r Row) String() string {
	s := fmt.Sprintf("%s: budget %s, taken %d, created %d, started %d, removed %d, denied %d",
		r.Kind, r.limitText(), r.Taken, len(r.Created), len(r.Started), len(r.Removed), r.Denied)
	if len(r.Unplanned) > 0 {
		s += fmt.Sprintf(" (%d by a request meant to be refused)", len(r.Unplanned))
	}
	return s + ", left behind: " + r.leftText()
}
