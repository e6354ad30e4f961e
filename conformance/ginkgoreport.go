package conformance

import (
	"encoding/json"

	"github.com/onsi/ginkgo/v2/types"

	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/report"
)

// The suite's edge: Ginkgo's report of a run becomes the reports' model
// (package report), from which every report is written. This file is the
// only reader of Ginkgo's report and of the entries the checks attach as
// they run: a finding, a decided difference, an exchange or a timing
// attached another way changes this file alone.

// Entries the suite attaches besides report's Entry names: the exchange
// each failed judgement names (expect.go) and a failed or differing
// check's whole exchange log (the AfterEach of register).
const (
	entryReproduce = "reproduce"
	entryExchanges = "exchanges"
)

// runOf converts Ginkgo's report into a run: its verdict and times, every
// It as a check, and the suite nodes that failed. What Ginkgo does not know
// (the target, coverage, what was spent) the caller adds (env.reportRun).
func runOf(r types.Report) report.Run {
	run := report.Run{Suite: r.SuiteDescription, Start: r.StartTime, End: r.EndTime,
		Succeeded: r.SuiteSucceeded, Stopped: r.SpecialSuiteFailureReasons, Checks: []report.Check{}}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			if sr.State.Is(types.SpecStateFailureStates) {
				run.SuiteFailures = append(run.SuiteFailures, report.SuiteFailure{Node: sr.LeafNodeType.String(), Failure: failureOf(sr)})
			}
			continue
		}
		run.Checks = append(run.Checks, checkOf(sr))
	}
	return run
}

// checkOf converts one It: its state as the summary counts it, and what
// its entries hold, as values.
func checkOf(sr types.SpecReport) report.Check {
	labels := sr.Labels()
	c := report.Check{Area: report.AreaOf(labels), Path: append([]string{}, sr.ContainerHierarchyTexts...),
		Behaviour: sr.LeafNodeText, Labels: labels, Start: sr.StartTime, End: sr.EndTime, Duration: sr.RunTime}
	for _, en := range sr.ReportEntries {
		switch en.Name {
		case report.EntryFindings:
			if fs, ok := entryValue[judge.Findings](en); ok {
				c.Findings = append(c.Findings, fs...)
			}
		case report.EntryDecided:
			if d, ok := entryValue[report.Difference](en); ok {
				c.Differences = append(c.Differences, d)
			}
		case report.EntryTiming:
			if t, ok := entryValue[judge.StreamTiming](en); ok {
				c.Streams = append(c.Streams, t)
			}
		case report.EntryRetries:
			if n, ok := entryValue[int64](en); ok {
				c.Retries += n
			}
		case entryReproduce:
			if x, ok := entryValue[*exchange.Exchange](en); ok && x != nil {
				c.Reproduce = append(c.Reproduce, x)
			}
		case entryExchanges:
			if l, ok := entryValue[exchange.Log](en); ok {
				c.Exchanges = append(c.Exchanges, l...)
			}
		default:
			c.Notes = append(c.Notes, report.Note{Name: en.Name, Text: en.StringRepresentation()})
		}
	}
	switch {
	case sr.State.Is(types.SpecStateFailureStates):
		c.State = report.Failed
		f := failureOf(sr)
		c.Failure = &f
	case sr.State == types.SpecStatePending:
		c.State = report.Pending
	case sr.State == types.SpecStateSkipped && sr.Failure.Message == "":
		c.State = report.NotSelected // left out by the filter, or a dry run's
	case sr.State == types.SpecStateSkipped:
		c.State, c.SkipReason = report.Skipped, sr.Failure.Message
	case len(c.Differences) > 0:
		c.State = report.DecidedDiffers
	default:
		c.State = report.Passed
	}
	return c
}

// failureOf is why a node failed, a panic's value and stack included.
func failureOf(sr types.SpecReport) report.Failure {
	f := report.Failure{Kind: sr.State.String(), Message: sr.Failure.Message,
		Location: report.Location{File: sr.Failure.Location.FileName, Line: sr.Failure.Location.LineNumber}}
	if sr.Failure.ForwardedPanic != "" {
		f.Message += "\n" + sr.Failure.ForwardedPanic
		f.Stack = sr.Failure.Location.FullStackTrace
	}
	return f
}

// entryValue is an entry's value as a T: the value attached (this
// process's report), or its JSON read back (a report that crossed a
// process, as Ginkgo's parallel runs hand it).
func entryValue[T any](en types.ReportEntry) (T, bool) {
	if v, ok := en.GetRawValue().(T); ok {
		return v, true
	}
	var v T
	if en.Value.AsJSON == "" {
		return v, false
	}
	return v, json.Unmarshal([]byte(en.Value.AsJSON), &v) == nil
}

// hasDifference reports whether a check's report holds a decided
// difference.
func hasDifference(sr types.SpecReport) bool {
	for _, en := range sr.ReportEntries {
		if en.Name == report.EntryDecided {
			return true
		}
	}
	return false
}
