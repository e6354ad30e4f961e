package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// readReport reads the suite's verdict from its JSON report (conformance
// --json: Ginkgo's format, a list of suite reports) and names the failed
// checks; the console text is never parsed.
func readReport(path string) (succeeded bool, failures []string, err error) {
	succeeded, failures, _, err = readVerdict(path)
	return succeeded, failures, err
}

// readVerdict is readReport, and whether every failed check is one of the
// explore phase's (label "explore").
func readVerdict(path string) (succeeded bool, failures []string, exploreOnly bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, nil, false, err
	}
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		return false, nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if len(reports) != 1 {
		return false, nil, false, fmt.Errorf("%s: %d suite reports, want 1", path, len(reports))
	}
	r := reports[0]
	exploreOnly = true
	for _, sr := range r.SpecReports {
		if !sr.State.Is(types.SpecStateFailureStates) {
			continue
		}
		if !slices.Contains(sr.Labels(), "explore") {
			exploreOnly = false
		}
		name := strings.Join(append(append([]string{}, sr.ContainerHierarchyTexts...), sr.LeafNodeText), " › ")
		if sr.LeafNodeText == "" {
			name = sr.LeafNodeType.String() // a suite node (cleanup)
		}
		msg, _, _ := strings.Cut(strings.TrimSpace(sr.Failure.Message), "\n")
		failures = append(failures, name+": "+msg)
	}
	failures = append(failures, r.SpecialSuiteFailureReasons...)
	if !r.SuiteSucceeded && len(failures) == 0 {
		failures = []string{"the suite failed without a failed check"}
	}
	if len(r.SpecialSuiteFailureReasons) > 0 || len(failures) == 0 {
		exploreOnly = false
	}
	return r.SuiteSucceeded, failures, exploreOnly, nil
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
