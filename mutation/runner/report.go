package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"contractkit/mutation"
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
	writeEveryFailure(&b, results)
	return b.String()
}

// maxListed bounds the failed checks listed for one run.
const maxListed = 20

// writeEveryFailure lists, for each run that was not as expected, every
// check that failed (the table shows only the first): a variant failed
// once in a loaded CI run is diagnosed from the log, not re-run blind.
func writeEveryFailure(b *strings.Builder, results []Result) {
	for _, r := range results {
		if r.OK() || len(r.Failures) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s (expected %s, %s), every failed check:\n", label(r), r.Expected(), r.Outcome())
		for i, f := range r.Failures {
			if i == maxListed {
				fmt.Fprintf(b, "- … and %d more\n", len(r.Failures)-maxListed)
				break
			}
			fmt.Fprintf(b, "- %s\n", f)
		}
	}
}

// cell makes s safe in one Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// keepReport copies a run's JSON report to dir/NAME.json (the baseline's
// as baseline.json). The names are the runner's own table's, never input.
// A copy that fails only leaves the file out: the verdict is the run's, and
// the table still lists every failed check.
func keepReport(report, dir string, mu mutation.Mutant) {
	name := mu.Name
	if name == "" {
		name = "baseline"
	}
	b, err := os.ReadFile(report)
	if err != nil {
		return
	}
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, filepath.Base(name)+".json"), b, 0o644)
}
