package proxy

import (
	"fmt"
	"strings"
	"time"

	"contractkit/judge"
	"contractkit/report"
)

// The proxy's reports are the suite's (package report): a run with one
// check per operation seen, failed by its declared violations (and by its
// decided differences under --strict), its decided differences as values,
// so the report writers render it as they render a suite's run.

// Suite names the proxy's runs in the reports.
const Suite = "API conformance (validating proxy)"

// Report is the run of what the log holds, for a proxy to target that ran
// from start to end. The caller adds what the proxy does not keep itself:
// the run's info, the coverage of the traffic.
func (l *Log) Report(target string, strict bool, start, end time.Time) report.Run {
	ops, outside := l.snapshot()
	r := report.Run{Suite: Suite, Target: target, Strict: strict, Start: start, End: end, Succeeded: true, Checks: []report.Check{}}
	for _, o := range ops {
		c := o.check(target, strict)
		if c.State == report.Failed {
			r.Succeeded = false
		}
		r.Checks = append(r.Checks, c)
	}
	if outside > 0 {
		labels := []string{"proxy"}
		r.Checks = append(r.Checks, report.Check{Area: report.AreaOf(labels), Path: []string{"Proxy"},
			Behaviour: fmt.Sprintf("%d request(s) outside the contract: forwarded, not judged", outside),
			Labels:    labels, State: report.Passed, Start: start, End: end})
	}
	return r
}

// check is the check of one operation.
func (o *opLog) check(target string, strict bool) report.Check {
	labels := []string{o.area, "proxy", o.id}
	c := report.Check{
		Area:      report.AreaOf(labels),
		Path:      []string{"Proxy", o.area},
		Behaviour: fmt.Sprintf("%s: %d exchange(s) through the proxy to %s", o.id, o.exchanges, target),
		Labels:    labels,
		State:     report.Passed,
		Start:     o.first,
		End:       o.last,
		Duration:  o.last.Sub(o.first),
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
		c.Differences = append(c.Differences, report.Difference{
			Decision: decisionName(id), What: "the answers differ from the contract as written",
			Findings: values(fs), Curl: fs[0].Curl, Line: fs[0].Line,
		})
	}
	if cf := o.kept(ClientFault); len(cf) > 0 {
		c.Notes = append(c.Notes, report.Note{Name: "client: requests the contract refuses (the client's fault, not the server's)", Text: o.render(cf)})
	}
	if o.left > 0 {
		c.Notes = append(c.Notes, report.Note{Name: "left by the client", Text: fmt.Sprintf("%d exchange(s) the client left before the answer ended; not judged further", o.left)})
	}
	c.Findings = values(o.findings)
	if o.dropped > 0 {
		c.Notes = append(c.Notes, report.Note{Name: "more findings", Text: fmt.Sprintf("%d further distinct finding(s) were printed, not kept", o.dropped)})
	}
	switch {
	case failure.Len() > 0:
		c.State = report.Failed
		c.Failure = &report.Failure{Kind: "failed", Message: strings.TrimSpace(failure.String())}
	case len(c.Differences) > 0:
		c.State = report.DecidedDiffers
	}
	return c
}

// values are the judge's findings of fs, as the reports keep them.
func values(fs []Finding) judge.Findings {
	if len(fs) == 0 {
		return nil
	}
	out := make(judge.Findings, len(fs))
	for i, f := range fs {
		out[i] = f.Finding
	}
	return out
}
