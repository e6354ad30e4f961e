package report

import (
	"encoding/json"
	"os"

	"contractkit/coverage"
)

// The contract coverage of a run (package coverage) in the reports: the
// total line in the summary, the per-operation section of the HTML report,
// a JUnit property, a field of the JSON report, and, with --coverage, a
// JSON file of its own — the form a CI job parses most easily
// (jq '.totals').

// WriteCoverageFile writes cov as indented JSON to path ("" writes
// nothing; a nil cov is an empty coverage).
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

func writeCoverage(path string, r Run, o Options) error {
	return WriteCoverageFile(path, o.redact(r).Coverage)
}
