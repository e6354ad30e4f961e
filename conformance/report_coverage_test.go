package conformance

import (
	"encoding/json"
	"encoding/xml"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"contractkit/coverage"
	"contractkit/mockserver"
	"contractkit/report"
	"contractkit/spec"
)

// A run's reports carry the coverage of its traffic, the inference streams
// and the explore phase included: the summary line, the --coverage file,
// a field of the JSON report, a JUnit property and the HTML section.
func TestRunReportsCoverage(t *testing.T) {
	srv, err := mockserver.New(mockserver.Config{Keys: []string{testKey}, TokenInterval: time.Millisecond,
		TrainDuration: time.Second, EvalDuration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	code, out := runChild(t, "--base-url", ts.URL, "--api-key", testKey, "--timeout", "20s",
		"--label-filter", "inference || explore", "--explore", "60", "--seed", "7",
		"--coverage", file("cov.json"), "--json", file("r.json"), "--junit", file("j.xml"), "--html", file("r.html"))
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, out)
	}
	m := regexp.MustCompile(`Coverage: (\d+)/(\d+) operations called, (\d+)/(\d+) documented statuses seen, (\d+)/(\d+) answer fields observed[^\n]*`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no coverage line in the summary:\n%s", out)
	}
	line := m[0]

	var cov coverage.Report
	readJSON(t, file("cov.json"), &cov)
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	tot := cov.Totals
	if got := []int{tot.OperationsCalled, tot.Operations, tot.StatusesSeen, tot.Statuses, tot.FieldsObserved, tot.Fields}; !slices.Equal(got, []int{n(1), n(2), n(3), n(4), n(5), n(6)}) {
		t.Errorf("--coverage totals %v, the summary says %q", got, line)
	}
	if len(cov.Operations) != len(spec.Strict().Operations) || tot.Operations != len(cov.Operations) {
		t.Errorf("%d operations in the coverage, %d in the contract", len(cov.Operations), len(spec.Strict().Operations))
	}
	streamed := false
	for _, o := range cov.Operations {
		if o.ID != "runInference" {
			continue
		}
		for _, s := range o.Statuses {
			for _, b := range s.Bodies {
				streamed = streamed || b.EventChunk && b.Observed > 0
			}
		}
	}
	if !streamed {
		t.Errorf("no field of an inference stream's chunks observed: %+v", cov.Operations)
	}
	// Every answer the explore phase counts (its table "answers by
	// operation and status", by the step's operation) is in the coverage
	// too: per status, the coverage has at least as many.
	explored := regexp.MustCompile(`(?m)^  (\w+) +((?:\d+×\d+ ?)+)$`).FindAllStringSubmatch(out, -1)
	if len(explored) == 0 {
		t.Fatalf("no explore table in the output:\n%s", out)
	}
	byStatus := map[string]int{}
	for _, row := range explored {
		for _, cell := range strings.Fields(row[2]) {
			count, status, _ := strings.Cut(cell, "×")
			c, _ := strconv.Atoi(count)
			byStatus[status] += c
		}
	}
	for status, c := range byStatus {
		if seen := seenCount(cov, status); seen < c {
			t.Errorf("the explore phase had %d answer(s) %s, the coverage %d", c, status, seen)
		}
	}

	r, err := report.ReadJSON(file("r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Coverage == nil || r.Coverage.Line() != line {
		t.Errorf("the JSON report's coverage: %+v, want the line %q", r.Coverage, line)
	}

	if got := junitProperty(t, file("j.xml"), "contract.coverage"); got != line {
		t.Errorf("JUnit contract.coverage %q, want %q", got, line)
	}

	html, _ := os.ReadFile(file("r.html"))
	for _, want := range []string{`<section id="coverage">`, line, "runInference"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	for _, name := range []string{"cov.json", "r.json", "j.xml", "r.html"} {
		if b, _ := os.ReadFile(file(name)); strings.Contains(string(b), testKey) {
			t.Errorf("the key appears in %s", name)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// junitProperty is the value of the run's JUnit property name ("" when
// the report has none).
func junitProperty(t *testing.T, path, name string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"testsuite>properties>property"`
	}
	if err := xml.Unmarshal(raw, &junit); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, p := range junit.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// seenCount is how often the operations answered status, documented or not.
func seenCount(r coverage.Report, status string) int {
	n := 0
	for _, o := range r.Operations {
		for _, s := range o.Statuses {
			if s.Code == status {
				n += s.Seen
			}
		}
		for _, u := range o.Undocumented {
			if strconv.Itoa(u.Status) == status {
				n += u.Count
			}
		}
	}
	return n
}
