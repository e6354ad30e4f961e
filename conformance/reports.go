package conformance

import (
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/reporters"

	"contractkit/coverage"
	"contractkit/report"
)

// What a run hands the report writers (package report): the run's info and
// options, the summary's account of the run, and the contract coverage of
// its traffic — the total line in the summary, a JUnit property, the HTML
// section, an entry of the Ginkgo JSON report (on the AfterSuite node)
// and, with --coverage, a JSON file of its own.

func newRunInfo(cfg Config) report.RunInfo { return report.NewRunInfo(cfg.flagLine()) }

// reportOptions are the report writers' options for a run of c.
func (c Config) reportOptions() report.Options {
	return report.Options{BaseURL: c.BaseURL, Key: c.APIKey, Key2: c.APIKey2, Strict: c.Strict, Info: newRunInfo(c),
		JSON: c.JSON, JUnit: c.JUnit, HTML: c.HTML, Coverage: c.Coverage}
}

// summaryRun is what the summary says of the run beyond its checks.
func (e *env) summaryRun() report.Run {
	r := report.Run{Strict: e.cfg.Strict, Info: newRunInfo(e.cfg), Keep: e.cfg.Keep, Prefix: e.prefix, Explored: e.explored, Leaks: e.leaks}
	if e.client != nil {
		r.Retries = e.client.Retries()
	}
	return r
}

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
		AddReportEntry(report.EntryCoverage, report.Coverage{Report: e.client.Coverage()}, ReportEntryVisibilityNever)
	}
}

// spent is what the run created, started and removed (nil without a
// client: nothing was sent).
func (e *env) spent() *report.Spent {
	if e.client == nil {
		return nil
	}
	return report.SpentOf(e.spend.ledger)
}

// spentProperty is the JUnit property of what the run spent.
func (e *env) spentProperty(s *report.Spent) []reporters.JUnitProperty {
	if s == nil {
		return nil
	}
	return []reporters.JUnitProperty{{Name: report.PropertySpent, Value: s.Line}}
}

// addSpendEntry adds what the run spent to the current node's report (the
// AfterSuite's, after the clean-up): Ginkgo's JSON report carries it.
func (e *env) addSpendEntry() {
	if s := e.spent(); s != nil {
		AddReportEntry(report.EntrySpent, s, ReportEntryVisibilityNever)
	}
}
