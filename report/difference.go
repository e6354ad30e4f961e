package report

import "fmt"

// Difference is a decided rule the server does not keep, as attached to
// the report of the check (entry EntryDecided).
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
