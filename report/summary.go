package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"contractkit/conformance/client"
	"contractkit/coverage"
	"contractkit/judge"

	"github.com/onsi/ginkgo/v2/types"
)

// Areas are the suite's Areas in report order: the label of each top-level
// container and its title.
var Areas = []struct{ Label, Title string }{
	{"auth", "Authentication"},
	{"envelope", "Envelope and errors"},
	{"models", "Models"},
	{"datasets", "Datasets"},
	{"conversations", "Conversations"},
	{"inference", "Inference"},
	{"evaluations", "Evaluations"},
	{"limits", "Limits"},
	{"isolation", "Isolation"},
	{"rate-limit", "Rate limiting"},
	{"explore", "Explore"},
}

// Outcome is what became of one check.
type Outcome string

// Outcomes of a check.
const (
	Passed         Outcome = "passed"
	Failed         Outcome = "failed"
	Skipped        Outcome = "skipped"
	DecidedDiffers Outcome = "decided-differs"
	NotSelected    Outcome = "not selected"
)

// Counts are the outcomes of an area's checks.
type Counts struct {
	Passed, Failed, Skipped, DecidedDiffers, NotSelected int
}

// Selected counts the checks the label filter and focus selected.
func (c Counts) Selected() int { return c.Passed + c.Failed + c.Skipped + c.DecidedDiffers }

func (c *Counts) add(o Outcome) {
	switch o {
	case Passed:
		c.Passed++
	case Failed:
		c.Failed++
	case Skipped:
		c.Skipped++
	case DecidedDiffers:
		c.DecidedDiffers++
	case NotSelected:
		c.NotSelected++
	}
}

// CheckResult is one check's outcome with what explains it.
type CheckResult struct {
	Area    string
	Name    string
	Labels  []string
	Outcome Outcome
	// Reason is the failure message, the skip reason, or the decided
	// differences.
	Reason string
	// Details are the report entries (reproduction, exchanges) as text.
	Details []string
	RunTime time.Duration
	// Streams are the timings of the check's inference streams.
	Streams []judge.StreamTiming
}

// Summary is a run's outcome per area.
type Summary struct {
	ByArea map[string]*Counts
	Total  Counts
	Checks []CheckResult
	// SuiteFailures are failures outside the checks (AfterSuite cleanup).
	SuiteFailures []string
	// Title heads the HTML report ("" for the suite's own).
	Title string
	// Coverage is the contract coverage of the run's traffic (nil when
	// nothing was sent).
	Coverage *coverage.Report
	// Spent is what the run created, started and removed (nil when
	// nothing was sent).
	Spent *Spent
}

func areaOf(labels []string) string {
	for _, l := range labels {
		for _, a := range Areas {
			if l == a.Label {
				return l
			}
		}
	}
	return "other"
}

func fullName(sr types.SpecReport) string {
	return strings.Join(append(append([]string{}, sr.ContainerHierarchyTexts...), sr.LeafNodeText), " › ")
}

// Summarize reads a run's outcome per area from its Ginkgo report.
func Summarize(r types.Report) Summary {
	s := Summary{ByArea: map[string]*Counts{}}
	for _, a := range Areas {
		s.ByArea[a.Label] = &Counts{}
	}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			if sr.State.Is(types.SpecStateFailureStates) {
				s.SuiteFailures = append(s.SuiteFailures, fmt.Sprintf("%s: %s", sr.LeafNodeType, firstLine(sr.Failure.Message)))
			}
			continue
		}
		c := CheckResult{Area: areaOf(sr.Labels()), Name: fullName(sr), Labels: sr.Labels(), RunTime: sr.RunTime}
		switch {
		case sr.State.Is(types.SpecStateFailureStates):
			c.Outcome, c.Reason = Failed, sr.Failure.Message
		case sr.State.Is(types.SpecStateSkipped | types.SpecStatePending):
			c.Outcome, c.Reason = Skipped, sr.Failure.Message
			if c.Reason == "" {
				c.Outcome = NotSelected
			}
		case HasDifference(sr):
			c.Outcome = DecidedDiffers
			var notes []string
			for _, en := range sr.ReportEntries {
				if en.Name == EntryDecided {
					notes = append(notes, en.StringRepresentation())
				}
			}
			c.Reason = strings.Join(notes, "\n")
		default:
			c.Outcome = Passed
		}
		for _, en := range sr.ReportEntries {
			if t, ok := en.GetRawValue().(judge.StreamTiming); ok && en.Name == EntryTiming {
				c.Streams = append(c.Streams, t)
				continue
			}
			if en.Name != EntryDecided {
				c.Details = append(c.Details, en.Name+":\n"+en.StringRepresentation())
			}
		}
		if _, ok := s.ByArea[c.Area]; !ok {
			s.ByArea[c.Area] = &Counts{}
		}
		s.ByArea[c.Area].add(c.Outcome)
		s.Total.add(c.Outcome)
		s.Checks = append(s.Checks, c)
	}
	return s
}

// Run is what a summary says of a run beyond its checks.
type Run struct {
	// Strict says decided checks failed the run; Info what judged it.
	Strict bool
	Info   RunInfo
	// Keep says the run left its resources in place, named with Prefix.
	Keep   bool
	Prefix string
	// Retries counts the requests repeated after a 429.
	Retries int64
	// Explored says how the explore phase ran ("" when it did not).
	Explored string
	// Leaks are the resources the clean-up could not remove.
	Leaks []string
}

// WriteSummary ends every run: the table per area, then the decided
// differences, the skips and the failures, one line each.
func WriteSummary(out io.Writer, s Summary, run Run) {
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Conformance summary")
	mode := "declared checks fail the run; decided checks are reported (--strict makes them fail)"
	if run.Strict {
		mode = "--strict: declared and decided checks fail the run"
	}
	fmt.Fprintf(out, "(%s)\n%s\n\n", mode, run.Info)
	const rowFormat = "%-14s %7v %7v %8v %16v %13v\n"
	fmt.Fprintf(out, rowFormat, "area", "passed", "failed", "skipped", "decided-differs", "not selected")
	row := func(name string, c Counts) {
		fmt.Fprintf(out, rowFormat, name, c.Passed, c.Failed, c.Skipped, c.DecidedDiffers, c.NotSelected)
	}
	for _, a := range Areas {
		row(a.Label, *s.ByArea[a.Label])
	}
	if c, ok := s.ByArea["other"]; ok {
		row("other", *c)
	}
	row("total", s.Total)

	section := func(title string, o Outcome) {
		var lines []string
		for _, c := range s.Checks {
			if c.Outcome == o {
				lines = append(lines, fmt.Sprintf("  - %s\n      %s", c.Name, strings.ReplaceAll(FirstParagraph(c.Reason), "\n", "\n      ")))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(out, "\n%s (%d):\n%s\n", title, len(lines), strings.Join(lines, "\n"))
		}
	}
	section("Decided: differs", DecidedDiffers)
	section("Skipped", Skipped)
	section("Failed", Failed)
	for _, f := range s.SuiteFailures {
		fmt.Fprintf(out, "\nSuite failure: %s\n", f)
	}
	var streams []string
	for _, c := range s.Checks {
		for _, t := range c.Streams {
			streams = append(streams, fmt.Sprintf("  - %s\n      %s", c.Name, t))
		}
	}
	if len(streams) > 0 {
		fmt.Fprintf(out, "\nStreams as a client saw them (%d):\n%s\n", len(streams), strings.Join(streams, "\n"))
	}
	if run.Retries > 0 {
		fmt.Fprintf(out, "\nRate limited: %d request(s) repeated after a 429 with Retry-After (at most %d per request, %s of waiting)\n",
			run.Retries, client.MaxRetries, client.MaxRetryWait)
	}
	if run.Explored != "" {
		fmt.Fprintf(out, "\nExplore phase: %s", strings.ReplaceAll(strings.TrimPrefix(run.Explored, "explore: "), "\n", "\n  "))
	}
	if s.Coverage != nil {
		fmt.Fprintf(out, "\n%s\n", s.Coverage.Line())
	}
	writeSpent(out, s.Spent)
	if len(run.Leaks) > 0 {
		fmt.Fprintf(out, "\nResources not removed (%d):\n  %s\n", len(run.Leaks), strings.Join(run.Leaks, "\n  "))
	}
	if run.Keep {
		fmt.Fprintf(out, "\n--keep: the resources of this run are left in place (names start with %q)\n", run.Prefix)
	}
}

// FirstParagraph keeps the first lines of a message, up to a blank line,
// at most eight.
func FirstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 8 {
		lines = append(lines[:8], "…")
	}
	return strings.Join(lines, "\n")
}

// HasDifference reports whether a check's report holds a decided
// difference.
func HasDifference(r types.SpecReport) bool {
	for _, en := range r.ReportEntries {
		if en.Name == EntryDecided {
			return true
		}
	}
	return false
}

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
