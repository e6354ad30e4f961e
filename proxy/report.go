package proxy

import (
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"contractkit/judge"
	"contractkit/report"
)

// The proxy's reports are the suite's: a Ginkgo report with one spec per
// operation seen, failed by its declared violations (and by its decided
// differences under --strict), its decided differences attached as the
// suite attaches them, so report.WriteReports renders it unchanged.

// Report builds the Ginkgo report of what the log holds, for a proxy to
// target that ran from start to end.
func (l *Log) Report(target string, strict bool, start, end time.Time) types.Report {
	ops, outside := l.snapshot()
	r := types.Report{
		SuitePath:        "proxy",
		SuiteDescription: "API conformance (validating proxy)",
		SuiteSucceeded:   true,
		StartTime:        start,
		EndTime:          end,
		RunTime:          end.Sub(start),
		SuiteConfig:      types.SuiteConfig{Timeout: end.Sub(start)},
	}
	for _, o := range ops {
		sr := o.spec(target, strict)
		if sr.State.Is(types.SpecStateFailureStates) {
			r.SuiteSucceeded = false
		}
		r.SpecReports = append(r.SpecReports, sr)
	}
	r.PreRunStats.TotalSpecs, r.PreRunStats.SpecsThatWillRun = len(ops), len(ops)
	if outside > 0 {
		r.SpecReports = append(r.SpecReports, types.SpecReport{
			LeafNodeType: types.NodeTypeIt, LeafNodeText: fmt.Sprintf("%d request(s) outside the contract: forwarded, not judged", outside),
			ContainerHierarchyTexts: []string{"Proxy"}, LeafNodeLabels: []string{"proxy"},
			State: types.SpecStatePassed, StartTime: start, EndTime: end,
		})
	}
	return r
}

// spec is the spec of one operation.
func (o *opLog) spec(target string, strict bool) types.SpecReport {
	sr := types.SpecReport{
		ContainerHierarchyTexts: []string{"Proxy", o.area},
		LeafNodeType:            types.NodeTypeIt,
		LeafNodeText:            fmt.Sprintf("%s: %d exchange(s) through the proxy to %s", o.id, o.exchanges, target),
		LeafNodeLabels:          []string{o.area, "proxy", o.id},
		State:                   types.SpecStatePassed,
		StartTime:               o.first,
		EndTime:                 o.last,
		RunTime:                 o.last.Sub(o.first),
	}
	var failure strings.Builder
	if d := o.kept(Declared); len(d) > 0 {
		fmt.Fprintf(&failure, "the server broke the declared contract:\n%s", o.render(d))
	}
	decided := o.kept(Decided)
	byDecision := map[string][]Finding{}
	var ids []string
	for _, f := range decided {
		if byDecision[f.Decision] == nil {
			ids = append(ids, f.Decision)
		}
		byDecision[f.Decision] = append(byDecision[f.Decision], f)
	}
	for _, id := range ids {
		fs := byDecision[id]
		msg := "the answers differ from the contract as written:\n" + o.render(fs)
		if strict {
			fmt.Fprintf(&failure, "[decided %s, failing because of --strict]\n%s", decisionName(id), msg)
			continue
		}
		values := make(judge.Findings, len(fs))
		for i, f := range fs {
			values[i] = f.Finding
		}
		sr.ReportEntries = append(sr.ReportEntries, report.DecidedEntry(report.Difference{
			Decision: decisionName(id), What: "the answers differ from the contract as written",
			Findings: values, Curl: fs[0].Curl, Line: fs[0].Line,
		}, o.last))
	}
	if c := o.kept(ClientFault); len(c) > 0 {
		sr.ReportEntries = append(sr.ReportEntries, note("client: requests the contract refuses (the client's fault, not the server's)", o.render(c), o.last))
	}
	if o.left > 0 {
		sr.ReportEntries = append(sr.ReportEntries, note("left by the client", fmt.Sprintf("%d exchange(s) the client left before the answer ended; not judged further", o.left), o.last))
	}
	if len(o.findings) > 0 {
		// The findings as values, for the JSON report's readers.
		values := make(judge.Findings, len(o.findings))
		for i, f := range o.findings {
			values[i] = f.Finding
		}
		sr.ReportEntries = append(sr.ReportEntries, types.ReportEntry{Visibility: types.ReportEntryVisibilityNever,
			Time: o.last, Name: report.EntryFindings, Value: types.WrapEntryValue(values)})
	}
	if o.dropped > 0 {
		sr.ReportEntries = append(sr.ReportEntries, note("more findings", fmt.Sprintf("%d further distinct finding(s) were printed, not kept", o.dropped), o.last))
	}
	if failure.Len() > 0 {
		sr.State = types.SpecStateFailed
		sr.Failure = types.Failure{Message: strings.TrimSpace(failure.String()), FailureNodeType: types.NodeTypeIt}
	}
	return sr
}

// text is a report entry's value: shown as it is.
type text string

func (t text) String() string { return string(t) }

func note(name, s string, at time.Time) types.ReportEntry {
	return types.ReportEntry{Visibility: types.ReportEntryVisibilityAlways, Time: at, Name: name, Value: types.WrapEntryValue(text(s))}
}
