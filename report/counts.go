package report

// Counts are the states of a set of checks, as the summary counts them:
// a pending check counts as not selected.
type Counts struct {
	Passed         int `json:"passed"`
	Failed         int `json:"failed"`
	Skipped        int `json:"skipped"`
	DecidedDiffers int `json:"decided_differs"`
	NotSelected    int `json:"not_selected"`
}

// Selected counts the checks the label filter and focus selected.
func (c Counts) Selected() int { return c.Passed + c.Failed + c.Skipped + c.DecidedDiffers }

func (c *Counts) add(s State) {
	switch s {
	case Passed:
		c.Passed++
	case Failed:
		c.Failed++
	case Skipped:
		c.Skipped++
	case DecidedDiffers:
		c.DecidedDiffers++
	case NotSelected, Pending:
		c.NotSelected++
	}
}

// Tally is a run's counts per area and in all.
type Tally struct {
	// ByArea has every area of Areas, and OtherArea when a check has none
	// of them.
	ByArea map[string]Counts `json:"by_area"`
	Total  Counts            `json:"total"`
}

// Tally counts the run's checks per area and in all.
func (r Run) Tally() Tally {
	t := Tally{ByArea: map[string]Counts{}}
	for _, a := range Areas {
		t.ByArea[a.Label] = Counts{}
	}
	for _, c := range r.Checks {
		n := t.ByArea[c.Area]
		n.add(c.State)
		t.ByArea[c.Area] = n
		t.Total.add(c.State)
	}
	return t
}
