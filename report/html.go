package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"contractkit/coverage"
)

// The HTML report: one self-contained page (no external asset), escaped by
// html/template, keys redacted. It opens with what needs a reader: the
// failures, then the decided differences, then every other check by area,
// and ends with the contract coverage. A small inline script filters the
// checks by outcome and area; without JavaScript its form stays hidden and
// every check shows.

//go:embed report.html
var reportHTML string

var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"fieldCounts": func(o coverage.Operation) string {
		obs, total := o.FieldCounts()
		return fmt.Sprintf("%d/%d", obs, total)
	},
}).Parse(reportHTML))

// defaultHTMLTitle heads a suite run's report; Summary.Title overrides it.
const defaultHTMLTitle = "API conformance report"

// WriteHTMLFile writes the HTML report of r (summarised as s) to path.
func WriteHTMLFile(path string, r types.Report, s Summary, o Options) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeHTML(f, r, s, o); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// htmlGroup is a run of checks under one heading ("" for none).
type htmlGroup struct {
	Title  string
	Checks []CheckResult
}

// htmlSection is one part of the report: failures, decided differences,
// the other checks.
type htmlSection struct {
	ID, Title string
	Count     int
	Groups    []htmlGroup
}

// htmlOutcomes are the outcomes the filter offers, in the report's order.
var htmlOutcomes = []Outcome{Failed, DecidedDiffers, Skipped, Passed}

func writeHTML(w io.Writer, r types.Report, s Summary, o Options) error {
	type row struct {
		Name string
		C    Counts
	}
	type outcome struct {
		Value Outcome
		Count int
	}
	type area struct{ Label, Title string }
	redact := o.redactor()
	data := struct {
		Title, BaseURL, Start, Duration, Result, ResultClass, Run string
		Strict                                                    bool
		Rows                                                      []row
		Outcomes                                                  []outcome
		Areas                                                     []area
		Sections                                                  []htmlSection
		SuiteFailures                                             []string
		Coverage                                                  *coverage.Report
		Spent                                                     *Spent
	}{
		Title:         s.Title,
		BaseURL:       redact.String(o.BaseURL),
		Start:         r.StartTime.Format(time.RFC3339),
		Duration:      r.RunTime.Round(time.Millisecond).String(),
		Strict:        o.Strict,
		Run:           o.Info.String(),
		SuiteFailures: s.SuiteFailures,
		Spent:         s.Spent,
	}
	if data.Title == "" {
		data.Title = defaultHTMLTitle
	}
	data.Result, data.ResultClass = "PASS", "passed"
	if !r.SuiteSucceeded {
		data.Result, data.ResultClass = "FAIL", "failed"
	}
	count := func(o Outcome) int {
		n := 0
		for _, c := range s.Checks {
			if c.Outcome == o {
				n++
			}
		}
		return n
	}
	for _, o := range htmlOutcomes {
		data.Outcomes = append(data.Outcomes, outcome{o, count(o)})
	}

	failed := htmlSection{ID: "failures", Title: "Failures", Groups: []htmlGroup{{}}}
	decided := htmlSection{ID: "decided", Title: "Decided differences", Groups: []htmlGroup{{}}}
	rest := htmlSection{ID: "checks", Title: "Other checks"}
	for _, a := range slices.Concat(Areas, []struct{ Label, Title string }{{"other", "Other"}}) {
		if c, ok := s.ByArea[a.Label]; ok && a.Label != "other" {
			data.Rows = append(data.Rows, row{a.Label, *c})
		}
		g := htmlGroup{Title: a.Title}
		selected := false
		for _, c := range s.Checks {
			if c.Area != a.Label || c.Outcome == NotSelected {
				continue
			}
			selected = true
			switch c.Outcome {
			case Failed:
				failed.Groups[0].Checks = append(failed.Groups[0].Checks, c)
			case DecidedDiffers:
				decided.Groups[0].Checks = append(decided.Groups[0].Checks, c)
			default:
				g.Checks = append(g.Checks, c)
			}
		}
		if selected {
			data.Areas = append(data.Areas, area{a.Label, a.Title})
		}
		if len(g.Checks) > 0 {
			rest.Groups = append(rest.Groups, g)
			rest.Count += len(g.Checks)
		}
	}
	if c, ok := s.ByArea["other"]; ok {
		data.Rows = append(data.Rows, row{"other", *c})
	}
	data.Rows = append(data.Rows, row{"total", s.Total})
	failed.Count, decided.Count = len(failed.Groups[0].Checks), len(decided.Groups[0].Checks)
	for _, sec := range []htmlSection{failed, decided, rest} {
		if sec.Count > 0 {
			data.Sections = append(data.Sections, sec)
		}
	}

	if s.Coverage != nil {
		cov := *s.Coverage
		// A path no operation documents is the client's own text: keep a
		// key out of the page even if one was put in a path.
		cov.Unrouted = append([]coverage.Unrouted(nil), cov.Unrouted...)
		for i := range cov.Unrouted {
			cov.Unrouted[i].Path = redact.String(cov.Unrouted[i].Path)
		}
		data.Coverage = &cov
	}
	return htmlReport.Execute(w, data)
}
