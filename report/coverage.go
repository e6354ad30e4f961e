package report

import (
	"encoding/json"
	"os"

	"contractkit/coverage"
)

// The contract coverage of a run (package coverage) in the reports: the
// total line in the summary, the per-operation section of the HTML report,
// a JUnit property, a report entry of the Ginkgo JSON report (on the
// AfterSuite node), and, with --coverage, a JSON file of its own — the
// form a CI job parses most easily (jq '.totals').

// Coverage is the coverage as a report entry's value: its JSON is the
// coverage.Report's, its text the total line (not the whole table).
type Coverage struct{ coverage.Report }

// String is the entry's text representation.
func (c Coverage) String() string { return c.Line() }

// WriteCoverageFile writes cov as indented JSON to path ("" writes nothing).
func WriteCoverageFile(path string, cov *coverage.Report) error {
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
