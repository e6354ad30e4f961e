package report

import (
	"fmt"
	"strings"

	"contractkit/judge"
)

// Difference is a decided rule the server does not keep, as a value: the
// decision, the findings that show it (each with its pointer, want and
// got) and the exchange that reproduces it. The reports render its text;
// nothing stores it as text.
type Difference struct {
	// Decision is the DECISIONS.md row ("D-17"), or "the contract as
	// written" for a relaxed keyword no mark names.
	Decision string `json:"decision"`
	// What says what differs, in one line ("refused with another status
	// code").
	What string `json:"what,omitempty"`
	// Findings are the findings of the difference, each of class Decided.
	Findings judge.Findings `json:"findings,omitempty"`
	// Curl reproduces the exchange that shows the difference, if any.
	Curl string `json:"curl,omitempty"`
	// Line is the exchange's request line and status ("GET /x → 404").
	Line string `json:"line,omitempty"`
}

// Message renders what differs and every finding, one a line.
func (d Difference) Message() string {
	var b strings.Builder
	b.WriteString(d.What)
	if d.What != "" && len(d.Findings) > 0 {
		b.WriteString(":")
	}
	for _, f := range d.Findings {
		fmt.Fprintf(&b, "\n  - %s", f)
	}
	if d.Line != "" {
		fmt.Fprintf(&b, "\nin %s", d.Line)
	}
	return strings.TrimSpace(b.String())
}

// String renders the difference for the console and the reports.
func (d Difference) String() string {
	s := fmt.Sprintf("decided: differs (%s, see spec/DECISIONS.md)\n%s", d.Decision, d.Message())
	if d.Curl != "" {
		s += "\nReproduce:\n  " + d.Curl
	}
	return s
}
