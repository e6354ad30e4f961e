package report

import (
	"slices"
	"strings"
	"testing"
)

// Compare names the checks that went from passed to failed and back, by
// area and name; a check that did not run in both runs is no change.
func TestCompareChecks(t *testing.T) {
	before, _ := fixtureRun()
	after, _ := fixtureRun()
	after.Checks[0].State = Failed        // auth passes → failed
	after.Checks[6].State = Passed        // models failed → passed
	after.Checks[7].State = Failed        // datasets decided-differs → failed
	after.Checks[8].State = Passed        // not selected before: no change
	after.Checks[10].State = Passed       // skipped before: no change
	after.Info.ContractSHA256 = "another" // the contract changed
	c := Compare(before, after, "last.json")
	name := func(cs []CheckChange) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.String())
		}
		return out
	}
	if got := name(c.Failing); !slices.Equal(got, []string{"Area auth › auth passes (passed → failed)"}) {
		t.Errorf("failing %q", got)
	}
	if got := name(c.Passing); !slices.Equal(got, []string{"Area models › MUST refuse <script>alert(1)</script> (failed → passed)"}) {
		t.Errorf("passing %q", got)
	}
	if got := name(c.Differing); !slices.Equal(got, []string{"Area datasets › a dataset differs (decided-differs → failed)"}) {
		t.Errorf("differing %q", got)
	}
	text := strings.Join(c.Lines(), "\n")
	for _, want := range []string{"Changed since last.json, the run of 2026-01-02T03:04:05Z:", "different contracts",
		"checks failing now that passed before (1):\n    - Area auth › auth passes (passed → failed)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the comparison lacks %q:\n%s", want, text)
		}
	}
	same, _ := fixtureRun()
	if c := Compare(before, same, "last.json"); !c.Empty() || !strings.Contains(strings.Join(c.Lines(), "\n"), "nothing") {
		t.Errorf("a run compared with its like: %+v", c)
	}
}
