package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"contractkit/coverage"
	"contractkit/spec"
)

// testKey is the key of the runs the reports describe: no report shows it.
const testKey = "sk-test-3f9a2c71-SECRET"

// htmlFixture is a run with every outcome in several areas, a failure
// listed after many passed checks of its area (the order the suite runs
// them), a name to escape and a key in the base URL.
func htmlFixture() (types.Report, Summary, Options) {
	s := Summary{ByArea: map[string]*Counts{}}
	for _, a := range Areas {
		s.ByArea[a.Label] = &Counts{}
	}
	add := func(area string, o Outcome, name string) {
		s.Checks = append(s.Checks, CheckResult{Area: area, Name: name, Outcome: o, Labels: []string{area}, Reason: "why " + name})
		s.ByArea[area].add(o)
		s.Total.add(o)
	}
	add("auth", Passed, "auth passes")
	for range 5 {
		add("models", Passed, "a model check passes")
	}
	add("models", Failed, "Models › MUST refuse <script>alert(1)</script>")
	add("datasets", DecidedDiffers, "a dataset differs")
	add("datasets", NotSelected, "a dataset check not selected")
	add("inference", Skipped, "an inference check skipped")
	add("explore", Failed, "an explore property fails")
	rec := coverage.New(spec.Strict())
	rec.Observe("GET", "/api/v1/user/model", 200, "application/json", []byte(`{"status":"success","data":[]}`))
	cov := rec.Report()
	s.Coverage = &cov
	r := types.Report{StartTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), RunTime: time.Second, SuiteSucceeded: false}
	return r, s, Options{BaseURL: "http://127.0.0.1:1/?key=" + testKey, Key: testKey, Info: NewRunInfo([]string{"--api-key=<redacted>"})}
}

var checkElement = regexp.MustCompile(`<details class="([^"]*)" data-outcome="([^"]*)" data-area="([^"]*)"`)

func TestHTMLOpensWithFailuresThenDecided(t *testing.T) {
	r, s, cfg := htmlFixture()
	var b bytes.Buffer
	if err := writeHTML(&b, r, s, cfg); err != nil {
		t.Fatal(err)
	}
	page := b.String()

	checks := checkElement.FindAllStringSubmatch(page, -1)
	if n := strings.Count(page, `<details class=`); n != len(checks) || len(checks) != s.Total.Selected() {
		t.Fatalf("%d check elements with outcome and area of %d, want %d (every selected check)", len(checks), n, s.Total.Selected())
	}
	var order []string
	for _, c := range checks {
		if c[1] != c[2] {
			t.Errorf("class %q and data-outcome %q differ", c[1], c[2])
		}
		order = append(order, c[2]+" "+c[3])
	}
	want := []string{"failed models", "failed explore", "decided-differs datasets", "passed auth",
		"passed models", "passed models", "passed models", "passed models", "passed models", "skipped inference"}
	if strings.Join(order, ", ") != strings.Join(want, ", ") {
		t.Errorf("checks in the order\n  %s\nwant\n  %s", strings.Join(order, ", "), strings.Join(want, ", "))
	}
	failures, decided, rest, cov := strings.Index(page, "<h2>Failures (2)</h2>"), strings.Index(page, "<h2>Decided differences (1)</h2>"),
		strings.Index(page, "<h2>Other checks (7)</h2>"), strings.Index(page, `<section id="coverage">`)
	if failures < 0 || !(failures < decided && decided < rest && rest < cov) {
		t.Errorf("sections at %d (failures), %d (decided), %d (other), %d (coverage): want that order", failures, decided, rest, cov)
	}
}

func TestHTMLFilterControls(t *testing.T) {
	r, s, cfg := htmlFixture()
	var b bytes.Buffer
	if err := writeHTML(&b, r, s, cfg); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		// Hidden until the script shows it: without JavaScript every
		// check shows and no control pretends to filter.
		`<form id="filter" hidden>`,
		`name="outcome" value="failed" checked`, `name="outcome" value="decided-differs" checked`,
		`name="outcome" value="skipped" checked`, `name="outcome" value="passed" checked`,
		`<select name="area">`, `<option value="">all areas</option>`,
		`<option value="models">Models</option>`, `<option value="explore">Explore</option>`,
		`<option value="datasets">Datasets</option>`,
		`form.hidden = false`, `el.dataset.outcome`, `el.dataset.area`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// An area without a selected check offers nothing to filter.
	if strings.Contains(page, `<option value="isolation">`) {
		t.Error("the area select offers isolation, which has no check")
	}
	// Self-contained: no external script, style sheet or image.
	for _, banned := range []string{"<link", " src=", `href="http`, "@import"} {
		if strings.Contains(page, banned) {
			t.Errorf("the page loads an external asset (%s)", banned)
		}
	}
	if strings.Contains(page, "<script>alert(1)") || !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("a check's name is not escaped")
	}
	if strings.Contains(page, testKey) {
		t.Error("the key appears in the page")
	}
	for _, want := range []string{s.Coverage.Line(), `<span class="code seen" title="1 answer(s)">200</span>`, `<span class="code unseen"`, `<tr class="uncalled">`} {
		if !strings.Contains(page, want) {
			t.Errorf("the coverage section lacks %s", want)
		}
	}
}
