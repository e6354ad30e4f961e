package report

import (
	"fmt"
	"path/filepath"
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

// Each list of the comparison is bounded to maxChangeLines (the JSON
// report has every entry); the coverage's change follows the checks'.
func TestChangesLinesBounded(t *testing.T) {
	c := Changes{Since: "last.json"}
	for i := range maxChangeLines + 5 {
		c.Failing = append(c.Failing, CheckChange{Check: fmt.Sprintf("Area auth › check %d", i), Area: "auth", Before: Passed, After: Failed})
	}
	c.Passing = []CheckChange{{Check: "Area models › back", Area: "models", Before: Failed, After: Passed}}
	c.Differing = []CheckChange{{Check: "Area datasets › decided", Area: "datasets", Before: Failed, After: DecidedDiffers}}
	c.Coverage.FieldsGone = []string{"getModel 200 application/json: data.metrics"}
	got := c.Lines()
	want := []string{"Changed since last.json:", "  checks failing now that passed before (25):"}
	for i := range maxChangeLines {
		want = append(want, fmt.Sprintf("    - Area auth › check %d (passed → failed)", i))
	}
	want = append(want,
		"    … and 5 more (the JSON report's changes has them all)",
		"  checks passing now that failed before (1):",
		"    - Area models › back (failed → passed)",
		"  checks that changed between failed and decided-differs (1):",
		"    - Area datasets › decided (failed → decided-differs)",
		"  answer fields observed before, not now (1):",
		"    - getModel 200 application/json: data.metrics")
	if !slices.Equal(got, want) {
		t.Errorf("Lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The comparison goes into the JSON report and reads back as it was, and
// the summary ends with it.
func TestChangesInTheJSONReportAndTheSummary(t *testing.T) {
	before, o := fixtureRun()
	after, _ := fixtureRun()
	after.Checks[0].State = Failed
	c := Compare(before, after, "last.json")
	after.Changes = &c
	path := filepath.Join(t.TempDir(), "report.json")
	if err := WriteJSONFile(path, after, o); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Changes == nil || !slices.Equal(back.Changes.Lines(), c.Lines()) || !back.Changes.SinceStart.Equal(before.Start) {
		t.Errorf("the changes read back as %+v, want %+v", back.Changes, c)
	}
	var summary strings.Builder
	WriteSummary(&summary, after)
	if !strings.HasSuffix(summary.String(), "\nChanged since last.json, the run of 2026-01-02T03:04:05Z:\n  checks failing now that passed before (1):\n    - Area auth › auth passes (passed → failed)\n") {
		t.Errorf("the summary does not end with the changes:\n%s", summary.String())
	}
}
