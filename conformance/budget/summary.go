package budget

import (
	"contractkit/report"
	"contractkit/spec"
)

// Row is what one kind's account says at the end of a run: the reports'
// row itself (report.SpentRow), which they render, so the suite passes the
// ledger's rows on as they are.
type Row = report.SpentRow

// Rows returns a row per kind, in spec.CostKinds order, every kind
// present (a run that spent nothing shows zeros).
func (l *Ledger) Rows() []Row {
	l.mu.Lock()
	defer l.mu.Unlock()
	rows := make([]Row, 0, len(spec.CostKinds()))
	for _, k := range kindsInOrder() {
		row := Row{Kind: string(k), Limit: -1, Created: []string{}, Started: []string{}, Removed: []string{}, Unplanned: []string{}, Left: []string{}}
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
