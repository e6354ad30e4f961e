package report

import (
	"fmt"
	"time"

	"contractkit/coverage"
)

// Changes is what differs from a previous run (--compare): the checks
// whose verdict changed, and what the contract coverage gained and lost.
// A scheduled run of a deployment compares itself with its last run, so a
// check that started failing, or an answer field the server stopped
// sending, is named on the day it happens.
type Changes struct {
	// Since names the previous run: its report's file, and when it started.
	Since      string    `json:"since"`
	SinceStart time.Time `json:"since_start"`
	// ContractChanged says the runs judged against different contracts
	// (their sha256 differ): a change may come from the contract.
	ContractChanged bool `json:"contract_changed,omitempty"`
	// Failing are the checks that passed before and fail (or differ from
	// a decision) now; Passing those that failed or differed before and
	// pass now; Differing the other changes between failed and
	// decided-differs. A check that did not run in both runs is no change.
	Failing   []CheckChange `json:"failing"`
	Passing   []CheckChange `json:"passing"`
	Differing []CheckChange `json:"differing,omitempty"`
	// Coverage is what the coverage gained and lost (no coverage in a
	// report: none).
	Coverage coverage.Change `json:"coverage"`
}

// CheckChange is one check whose state changed.
type CheckChange struct {
	// Check is the check's full name (Check.Name).
	Check  string `json:"check"`
	Area   string `json:"area"`
	Before State  `json:"before"`
	After  State  `json:"after"`
}

// String is "Area › … › behaviour (passed → failed)".
func (c CheckChange) String() string {
	return fmt.Sprintf("%s (%s → %s)", c.Check, c.Before, c.After)
}

// ran says a state is a verdict: the check ran to one.
func ran(s State) bool { return s == Passed || s == Failed || s == DecidedDiffers }

// Compare says what differs in after from before; since names before (its
// report's file).
func Compare(before, after Run, since string) Changes {
	c := Changes{Since: since, SinceStart: before.Start, Failing: []CheckChange{}, Passing: []CheckChange{},
		ContractChanged: before.Info.ContractSHA256 != after.Info.ContractSHA256}
	was := map[string]State{}
	for _, ch := range before.Checks {
		was[ch.Area+"\x00"+ch.Name()] = ch.State
	}
	for _, ch := range after.Checks {
		b, ok := was[ch.Area+"\x00"+ch.Name()]
		if !ok || b == ch.State || !ran(b) || !ran(ch.State) {
			continue
		}
		cc := CheckChange{Check: ch.Name(), Area: ch.Area, Before: b, After: ch.State}
		switch {
		case b == Passed:
			c.Failing = append(c.Failing, cc)
		case ch.State == Passed:
			c.Passing = append(c.Passing, cc)
		default:
			c.Differing = append(c.Differing, cc)
		}
	}
	if before.Coverage != nil && after.Coverage != nil {
		c.Coverage = coverage.Compare(*before.Coverage, *after.Coverage)
	}
	return c
}

// Empty reports that nothing changed.
func (c Changes) Empty() bool {
	return len(c.Failing)+len(c.Passing)+len(c.Differing) == 0 && c.Coverage.Empty()
}

// maxChangeLines bounds each list of a comparison in the summary and the
// Markdown report; the JSON report has every entry.
const maxChangeLines = 20

// Lines renders the comparison, a title line and then one line per
// change, lists bounded to maxChangeLines.
func (c Changes) Lines() []string {
	when := ""
	if !c.SinceStart.IsZero() {
		when = ", the run of " + c.SinceStart.UTC().Format(time.RFC3339)
	}
	out := []string{fmt.Sprintf("Changed since %s%s:", c.Since, when)}
	if c.ContractChanged {
		out = append(out, "  (the runs judged against different contracts: a change may be the contract's)")
	}
	if c.Empty() {
		return append(out, "  nothing: every check that ran in both has its verdict, the coverage is as it was")
	}
	checks := func(title string, list []CheckChange) {
		if len(list) == 0 {
			return
		}
		out = append(out, fmt.Sprintf("  %s (%d):", title, len(list)))
		for i, cc := range list {
			if i == maxChangeLines {
				out = append(out, fmt.Sprintf("    … and %d more (the JSON report's changes has them all)", len(list)-i))
				break
			}
			out = append(out, "    - "+cc.String())
		}
	}
	checks("checks failing now that passed before", c.Failing)
	checks("checks passing now that failed before", c.Passing)
	checks("checks that changed between failed and decided-differs", c.Differing)
	for _, l := range c.Coverage.Lines(maxChangeLines) {
		out = append(out, "  "+l)
	}
	return out
}
