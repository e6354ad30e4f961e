package conformance

import (
	"github.com/onsi/ginkgo/v2/types"

	"contractkit/conformance/budget"
	"contractkit/conformance/client"
	"contractkit/coverage"
	"contractkit/report"
)

// What a run hands the report writers (package report): Ginkgo's report
// converted (ginkgoreport.go), with what the suite knows beyond it — the
// target and the run's info, the contract coverage of its traffic, what it
// spent and left behind, its 429 repeats within the client's bounds, the
// explore phase's account and the clean-up's leaks.

func newRunInfo(cfg Config) report.RunInfo { return report.NewRunInfo(cfg.flagLine()) }

// reportOptions are the report writers' options for a run of c.
func (c Config) reportOptions() report.Options {
	return report.Options{Key: c.APIKey, Key2: c.APIKey2, JSON: c.JSON, JUnit: c.JUnit, HTML: c.HTML, Coverage: c.Coverage, Markdown: c.Markdown}
}

// reportRun is the run of Ginkgo's report r as the reports show it.
func (e *env) reportRun(r types.Report) report.Run {
	run := runOf(r)
	run.Target, run.Strict, run.Info = e.cfg.BaseURL, e.cfg.Strict, newRunInfo(e.cfg)
	run.Explored, run.Leaks = e.explored, e.leaks
	if e.cfg.Keep {
		run.Kept = e.prefix
	}
	run.RateLimited = report.RateLimited{PerRequest: client.MaxRetries, Wait: client.MaxRetryWait}
	if e.client != nil {
		run.RateLimited.Repeated = e.client.Retries()
		run.Coverage = e.coverage()
		run.Spent = spentOf(e.spend.ledger)
	}
	if e.cfg.prev != nil {
		changes := report.Compare(*e.cfg.prev, run, e.cfg.Compare)
		run.Changes = &changes
	}
	return run
}

// coverage is the coverage of the run's answers (nil without a client).
func (e *env) coverage() *coverage.Report {
	if e.client == nil {
		return nil
	}
	cov := e.client.Coverage()
	return &cov
}

// spentOf is the ledger's account at the end of a run as the reports
// hold it (its rows are the reports' own).
func spentOf(l *budget.Ledger) *report.Spent {
	s := &report.Spent{Budget: l.Budget().String(), Left: []string{}}
	s.Rows = l.Rows()
	for _, o := range l.Left() {
		s.Left = append(s.Left, o.String())
	}
	return s
}
