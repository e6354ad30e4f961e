package runner

import (
	"testing"

	"contractkit/conformance"
)

// The runner reads the suite's exit status without linking the suite: its
// copy of the left-behind status must be the suite's.
func TestExitLeftBehindIsTheSuites(t *testing.T) {
	if exitLeftBehind != conformance.ExitLeftBehind {
		t.Errorf("exitLeftBehind = %d, the suite exits %d when it leaves resources behind", exitLeftBehind, conformance.ExitLeftBehind)
	}
}
