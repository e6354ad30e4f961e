package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteSummary ends every run: the table per area, then the decided
// differences, the skips and the failures, one line each, then what the
// run saw and left beyond its checks.
func WriteSummary(out io.Writer, r Run) {
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Conformance summary")
	mode := "declared checks fail the run; decided checks are reported (--strict makes them fail)"
	if r.Strict {
		mode = "--strict: declared and decided checks fail the run"
	}
	fmt.Fprintf(out, "(%s)\n%s\n\n", mode, r.Info)
	const rowFormat = "%-14s %7v %7v %8v %16v %13v\n"
	fmt.Fprintf(out, rowFormat, "area", "passed", "failed", "skipped", "decided-differs", "not selected")
	row := func(name string, c Counts) {
		fmt.Fprintf(out, rowFormat, name, c.Passed, c.Failed, c.Skipped, c.DecidedDiffers, c.NotSelected)
	}
	t := r.Tally()
	for _, a := range Areas {
		row(a.Label, t.ByArea[a.Label])
	}
	if c, ok := t.ByArea[OtherArea]; ok {
		row(OtherArea, c)
	}
	row("total", t.Total)

	section := func(title string, s State) {
		var lines []string
		for _, c := range r.Checks {
			if c.State == s {
				lines = append(lines, fmt.Sprintf("  - %s\n      %s", c.Name(), strings.ReplaceAll(FirstParagraph(c.Reason()), "\n", "\n      ")))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(out, "\n%s (%d):\n%s\n", title, len(lines), strings.Join(lines, "\n"))
		}
	}
	section("Decided: differs", DecidedDiffers)
	section("Skipped", Skipped)
	section("Failed", Failed)
	for _, f := range r.SuiteFailures {
		fmt.Fprintf(out, "\nSuite failure: %s: %s\n", f.Node, firstLine(f.Message))
	}
	var streams []string
	for _, c := range r.Checks {
		for _, t := range c.Streams {
			streams = append(streams, fmt.Sprintf("  - %s\n      %s", c.Name(), t))
		}
	}
	if len(streams) > 0 {
		fmt.Fprintf(out, "\nStreams as a client saw them (%d):\n%s\n", len(streams), strings.Join(streams, "\n"))
	}
	if rl := r.RateLimited; rl.Repeated > 0 {
		fmt.Fprintf(out, "\nRate limited: %d request(s) repeated after a 429 with Retry-After (at most %d per request, %s of waiting)\n",
			rl.Repeated, rl.PerRequest, rl.Wait)
	}
	if r.Explored != "" {
		fmt.Fprintf(out, "\nExplore phase: %s", strings.ReplaceAll(strings.TrimPrefix(r.Explored, "explore: "), "\n", "\n  "))
	}
	if r.Coverage != nil {
		fmt.Fprintf(out, "\n%s\n", r.Coverage.Line())
	}
	writeSpent(out, r.Spent)
	if len(r.Leaks) > 0 {
		fmt.Fprintf(out, "\nResources not removed (%d):\n  %s\n", len(r.Leaks), strings.Join(r.Leaks, "\n  "))
	}
	if r.Kept != "" {
		fmt.Fprintf(out, "\n--keep: the resources of this run are left in place (names start with %q)\n", r.Kept)
	}
	if r.Changes != nil {
		fmt.Fprintf(out, "\n%s\n", strings.Join(r.Changes.Lines(), "\n"))
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

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
