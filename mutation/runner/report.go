package runner

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"contractkit/report"
)

// readReport reads the suite's verdict from its JSON report (conformance
// --json: package report's format) and names the failed checks; the
// console text is never parsed.
func readReport(path string) (succeeded bool, failures []string, err error) {
	succeeded, failures, _, err = readVerdict(path)
	return succeeded, failures, err
}

// readVerdict is readReport, and whether every failed check is one of the
// explore phase's (label "explore").
func readVerdict(path string) (succeeded bool, failures []string, exploreOnly bool, err error) {
	r, err := report.ReadJSON(path)
	if err != nil {
		return false, nil, false, err
	}
	exploreOnly = true
	for _, c := range r.Checks {
		if c.State != report.Failed {
			continue
		}
		if !slices.Contains(c.Labels, "explore") {
			exploreOnly = false
		}
		failures = append(failures, c.Name()+": "+firstLine(c.Reason()))
	}
	for _, f := range r.SuiteFailures {
		exploreOnly = false
		failures = append(failures, f.Node+": "+firstLine(f.Message))
	}
	failures = append(failures, r.Stopped...)
	if !r.Succeeded && len(failures) == 0 {
		failures = []string{"the suite failed without a failed check"}
	}
	if len(r.Stopped) > 0 || len(failures) == 0 {
		exploreOnly = false
	}
	return r.Succeeded, failures, exploreOnly, nil
}

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// Render is the result table in Markdown with the score.
func Render(results []Result, took time.Duration) string {
	results = append([]Result(nil), results...)
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].Valid != results[j].Valid {
			return !results[i].Valid
		}
		return label(results[i]) < label(results[j])
	})
	var b strings.Builder
	killed, mutants, passed, variants := 0, 0, 0, 0
	b.WriteString("| name | area | what it breaks | rule | expected | outcome | first failed check |\n|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		if r.Valid {
			variants++
			if r.OK() {
				passed++
			}
		} else {
			mutants++
			if r.OK() {
				killed++
			}
		}
		first := ""
		if len(r.Failures) > 0 && (!r.Valid || !r.OK()) {
			first = r.Failures[0]
		}
		rule := "declared"
		switch {
		case r.Valid:
			rule = "-"
		case r.Explore:
			rule = "declared (explore only)"
		case r.Hostile:
			rule = fmt.Sprintf("hostile: exit 1, reports, ≤ %s, ≤ %d MiB", HostileTime, HostileMemory>>20)
		case r.Decided != "":
			rule = r.Decided + " (--strict)"
		}
		outcome := r.Outcome()
		if r.Hostile && r.PeakRSS > 0 {
			outcome += fmt.Sprintf(" in %.1fs, %d MiB", r.Duration.Seconds(), r.PeakRSS>>20)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", cell(label(r)), cell(r.Area), cell(r.Breaks), rule,
			r.Expected(), cell(outcome), cell(first))
	}
	fmt.Fprintf(&b, "\nScore: %d/%d mutants killed; %d/%d valid variants (baseline included) passed; %s.\n",
		killed, mutants, passed, variants, took.Round(time.Second))
	return b.String()
}

// cell makes s safe in one Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
