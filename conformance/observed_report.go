package conformance

import (
	"errors"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
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

// WriteReports writes r as cfg asks: the JSON and JUnit reports (Ginkgo's
// writers, the JUnit one with the run's properties) and the HTML report,
// as Run writes them. Every report is attempted; the errors are joined.
func WriteReports(r types.Report, cfg Config) error {
	var errs []error
	if cfg.JSON != "" {
		if err := reporters.GenerateJSONReport(r, cfg.JSON); err != nil {
			errs = append(errs, fmt.Errorf("--json: %w", err))
		}
	}
	if cfg.JUnit != "" {
		err := reporters.GenerateJUnitReport(r, cfg.JUnit)
		if err == nil {
			err = addJUnitProperties(cfg.JUnit, newRunInfo(cfg))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--junit: %w", err))
		}
	}
	if cfg.HTML != "" {
		if err := writeHTMLFile(cfg.HTML, r, summarize(r), cfg); err != nil {
			errs = append(errs, fmt.Errorf("--html: %w", err))
		}
	}
	return errors.Join(errs...)
}
