package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"slices"
	"time"

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

// WriteHTMLFile writes the HTML report of r to path, keys redacted as o
// says.
func WriteHTMLFile(path string, r Run, o Options) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeHTML(f, o.redact(r)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// htmlCheck is one check as the page shows it.
type htmlCheck struct {
	Outcome    State
	Area, Name string
	Labels     []string
	Reason     string
	Details    []string
}

// htmlGroup is a run of checks under one heading ("" for none).
type htmlGroup struct {
	Title  string
	Checks []htmlCheck
}

// htmlSection is one part of the report: failures, decided differences,
// the other checks.
type htmlSection struct {
	ID, Title string
	Count     int
	Groups    []htmlGroup
}

// htmlOutcomes are the outcomes the filter offers, in the report's order.
var htmlOutcomes = []State{Failed, DecidedDiffers, Skipped, Passed}

// writeHTML writes the page of r, already redacted.
func writeHTML(w io.Writer, r Run) error {
	type row struct {
		Name string
		C    Counts
	}
	type outcome struct {
		Value State
		Count int
	}
	type area struct{ Label, Title string }
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
		Title:    r.Suite + " report",
		BaseURL:  r.Target,
		Start:    r.Start.Format(time.RFC3339),
		Duration: r.Duration().Round(time.Millisecond).String(),
		Strict:   r.Strict,
		Run:      r.Info.String(),
		Coverage: r.Coverage,
		Spent:    r.Spent,
	}
	for _, f := range r.SuiteFailures {
		data.SuiteFailures = append(data.SuiteFailures, f.Node+": "+firstLine(f.Message))
	}
	data.Result, data.ResultClass = "PASS", "passed"
	if !r.Succeeded {
		data.Result, data.ResultClass = "FAIL", "failed"
	}
	t := r.Tally()
	for _, s := range htmlOutcomes {
		n := 0
		for _, c := range r.Checks {
			if c.State == s {
				n++
			}
		}
		data.Outcomes = append(data.Outcomes, outcome{s, n})
	}

	failed := htmlSection{ID: "failures", Title: "Failures", Groups: []htmlGroup{{}}}
	decided := htmlSection{ID: "decided", Title: "Decided differences", Groups: []htmlGroup{{}}}
	rest := htmlSection{ID: "checks", Title: "Other checks"}
	for _, a := range slices.Concat(Areas, []struct{ Label, Title string }{{OtherArea, "Other"}}) {
		if c, ok := t.ByArea[a.Label]; ok && a.Label != OtherArea {
			data.Rows = append(data.Rows, row{a.Label, c})
		}
		g := htmlGroup{Title: a.Title}
		selected := false
		for _, c := range r.Checks {
			if c.Area != a.Label || c.State == NotSelected || c.State == Pending {
				continue
			}
			selected = true
			hc := htmlCheck{Outcome: c.State, Area: c.Area, Name: c.Name(), Labels: c.Labels, Reason: c.Reason(), Details: details(c, true)}
			switch c.State {
			case Failed:
				failed.Groups[0].Checks = append(failed.Groups[0].Checks, hc)
			case DecidedDiffers:
				decided.Groups[0].Checks = append(decided.Groups[0].Checks, hc)
			default:
				g.Checks = append(g.Checks, hc)
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
	if c, ok := t.ByArea[OtherArea]; ok {
		data.Rows = append(data.Rows, row{OtherArea, c})
	}
	data.Rows = append(data.Rows, row{"total", t.Total})
	failed.Count, decided.Count = len(failed.Groups[0].Checks), len(decided.Groups[0].Checks)
	for _, sec := range []htmlSection{failed, decided, rest} {
		if sec.Count > 0 {
			data.Sections = append(data.Sections, sec)
		}
	}
	return htmlReport.Execute(w, data)
}
