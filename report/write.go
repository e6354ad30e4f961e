package report

import (
	"errors"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"contractkit/coverage"
)

// The report writers of a run, and the entries a report made elsewhere
// (the validating proxy builds a Ginkgo report of its own, one spec per
// operation seen) attaches so that they render it as they render a run's.

// DecidedEntry is the report entry of a decided difference, as a check
// attaches it: summaries and reports count its spec as decided-differs.
func DecidedEntry(d Difference, at time.Time) types.ReportEntry {
	return types.ReportEntry{
		Visibility: types.ReportEntryVisibilityAlways,
		Time:       at,
		Name:       EntryDecided,
		Value:      types.WrapEntryValue(d),
	}
}

// CoverageEntry is the report entry of a contract coverage, as a run
// attaches it to its AfterSuite node: the JSON report carries the whole
// coverage, its text is the total line.
func CoverageEntry(cov coverage.Report, at time.Time) types.ReportEntry {
	return types.ReportEntry{
		Visibility: types.ReportEntryVisibilityNever,
		Time:       at,
		Name:       EntryCoverage,
		Value:      types.WrapEntryValue(Coverage{cov}),
	}
}

// WriteReports writes r as o asks, as a suite's run writes its own: the JSON and
// JUnit reports (Ginkgo's writers, the JUnit one with the run's properties
// and the coverage), the HTML report (opening with the failures, ending
// with the coverage) and the coverage file (o.Coverage). cov may be nil.
// Every report is attempted; the errors are joined.
func WriteReports(r types.Report, o Options, cov *coverage.Report) error {
	var errs []error
	if o.JSON != "" {
		if err := reporters.GenerateJSONReport(r, o.JSON); err != nil {
			errs = append(errs, fmt.Errorf("--json: %w", err))
		}
	}
	if o.JUnit != "" {
		err := reporters.GenerateJUnitReport(r, o.JUnit)
		if err == nil {
			err = AddJUnitProperties(o.JUnit, o.Info, cov)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--junit: %w", err))
		}
	}
	if o.HTML != "" {
		s := Summarize(r)
		s.Coverage = cov
		if err := WriteHTMLFile(o.HTML, r, s, o); err != nil {
			errs = append(errs, fmt.Errorf("--html: %w", err))
		}
	}
	if cov != nil {
		if err := WriteCoverageFile(o.Coverage, cov); err != nil {
			errs = append(errs, fmt.Errorf("--coverage: %w", err))
		}
	}
	return errors.Join(errs...)
}
