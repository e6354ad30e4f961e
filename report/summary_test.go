package report

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	r, _ := fixtureRun()
	r.Kept, r.Leaks, r.Explored = "ck-1a2b3c-", []string{"model 9"}, "explore: 10 requests\nmore"
	var b strings.Builder
	WriteSummary(&b, r)
	out := b.String()
	for _, want := range []string{
		"(declared checks fail the run; decided checks are reported (--strict makes them fail))",
		"models               5       1        0                0             0",
		"datasets             0       0        0                1             2", // the pending check counts as not selected
		"total                6       2        1                1             2",
		"Decided: differs (1):\n  - Area datasets › a dataset differs\n      decided: differs (D-17, see spec/DECISIONS.md)",
		"Skipped (1):\n  - Area inference › an inference check skipped\n      the budget for inferences is spent",
		"Failed (2):\n  - Area models › MUST refuse <script>alert(1)</script>\n      not a conforming success:",
		"Suite failure: AfterSuite: clean-up failed\n",
		"Streams as a client saw them (1):",
		// The client's bounds, passed in.
		"Rate limited: 3 request(s) repeated after a 429 with Retry-After (at most 5 per request, 30s of waiting)",
		"Explore phase: 10 requests\n  more",
		r.Coverage.Line(),
		"What the run created, started and removed (budget: models=1,evaluation-runs=1):\nkind ",
		"Resources not removed (1):\n  model 9",
		`--keep: the resources of this run are left in place (names start with "ck-1a2b3c-")`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
}
