package conformance

import (
	"errors"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"contractkit/coverage"
)

// Reports of exchanges the suite did not make (the validating proxy): the
// proxy builds a Ginkgo report of its own, one spec per operation seen, and
// the suite's writers render it as they render a run's.

// DecidedEntry is the report entry of a decided difference, as a check
// attaches it: summaries and reports count its spec as decided-differs.
func DecidedEntry(d Difference, at time.Time) types.ReportEntry {
	return types.ReportEntry{
		Visibility: types.ReportEntryVisibilityAlways,
		Time:       at,
		Name:       entryDecided,
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
		Name:       entryCoverage,
		Value:      types.WrapEntryValue(coverageEntry{cov}),
	}
}

// WriteReports writes r as cfg asks, as Run writes a run's: the JSON and
// JUnit reports (Ginkgo's writers, the JUnit one with the run's properties
// and the coverage), the HTML report (opening with the failures, ending
// with the coverage) and the coverage file (cfg.Coverage). cov may be nil.
// Every report is attempted; the errors are joined.
func WriteReports(r types.Report, cfg Config, cov *coverage.Report) error {
	var errs []error
	if cfg.JSON != "" {
		if err := reporters.GenerateJSONReport(r, cfg.JSON); err != nil {
			errs = append(errs, fmt.Errorf("--json: %w", err))
		}
	}
	if cfg.JUnit != "" {
		err := reporters.GenerateJUnitReport(r, cfg.JUnit)
		if err == nil {
			err = addJUnitProperties(cfg.JUnit, newRunInfo(cfg), cov)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--junit: %w", err))
		}
	}
	if cfg.HTML != "" {
		s := summarize(r)
		s.Coverage = cov
		if err := writeHTMLFile(cfg.HTML, r, s, cfg); err != nil {
			errs = append(errs, fmt.Errorf("--html: %w", err))
		}
	}
	if cov != nil {
		if err := writeCoverageFile(cfg.Coverage, cov); err != nil {
			errs = append(errs, fmt.Errorf("--coverage: %w", err))
		}
	}
	return errors.Join(errs...)
}
