package conformance

import (
	"encoding/json"
	"os"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/coverage"
)

// The contract coverage of a run (package coverage) in the reports: the
// total line in the summary, the per-operation section of the HTML report,
// a JUnit property, a report entry of the Ginkgo JSON report (on the
// AfterSuite node), and, with --coverage, a JSON file of its own — the
// form a CI job parses most easily (jq '.totals').

// entryCoverage names the report entry holding the coverage.
const entryCoverage = "coverage"

// coverageEntry is the coverage as a report entry: its JSON is the
// coverage.Report's, its text the total line (not the whole table).
type coverageEntry struct{ coverage.Report }

// String is the entry's text representation.
func (c coverageEntry) String() string { return c.Line() }

// coverage is the coverage of the run's answers (nil without a client).
func (e *env) coverage() *coverage.Report {
	if e.client == nil {
		return nil
	}
	cov := e.client.Coverage()
	return &cov
}

// addCoverageEntry adds the coverage to the current node's report (the
// AfterSuite's): Ginkgo's JSON report carries it from there.
func (e *env) addCoverageEntry() {
	if e.client != nil {
		AddReportEntry(entryCoverage, coverageEntry{e.client.Coverage()}, ReportEntryVisibilityNever)
	}
}

// writeCoverageFile writes cov as indented JSON to path ("" writes nothing).
func writeCoverageFile(path string, cov *coverage.Report) error {
	if path == "" {
		return nil
	}
	if cov == nil {
		cov = &coverage.Report{Operations: []coverage.Operation{}}
	}
	raw, err := json.MarshalIndent(cov, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}
