package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

var checkElement = regexp.MustCompile(`<details class="([^"]*)" data-outcome="([^"]*)" data-area="([^"]*)"`)

// page is the HTML report of the fixture run, redacted as WriteHTMLFile
// redacts it.
func page(t *testing.T) (Run, string) {
	t.Helper()
	r, o := fixtureRun()
	var b bytes.Buffer
	if err := writeHTML(&b, o.redact(r)); err != nil {
		t.Fatal(err)
	}
	return r, b.String()
}

func TestHTMLOpensWithFailuresThenDecided(t *testing.T) {
	r, page := page(t)
	checks := checkElement.FindAllStringSubmatch(page, -1)
	if n := strings.Count(page, `<details class=`); n != len(checks) || len(checks) != r.Tally().Total.Selected() {
		t.Fatalf("%d check elements with outcome and area of %d, want %d (every selected check)", len(checks), n, r.Tally().Total.Selected())
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

// Every part of a check the model holds reaches the page: the failure,
// the findings, the exchange that reproduces it, the decided difference,
// the skip reason, a note, the retries; and the run's own parts.
func TestHTMLShowsTheModel(t *testing.T) {
	_, page := page(t)
	for _, want := range []string{
		"/status: envelope: want &#34;success&#34;, got &#34;ok&#34; (§1.1)", // a finding
		"reproduce:\nRequest:  GET http://127.0.0.1:1/api/v1/user/model/7",   // the exchange
		"decided: differs (D-17, see spec/DECISIONS.md)",                     // the difference
		"the budget for inferences is spent",                                 // the skip reason
		"left by the client:\n1 exchange(s) the client left",                 // a note
		"rate-limit retries: 2",
		"Suite failure: AfterSuite: clean-up failed",
		`<section id="spent">`, "<td>evaluation-runs</td>",
		"<title>API conformance report</title>", "FAIL",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "a pending dataset check") || strings.Contains(page, "not selected</span>") {
		t.Error("the page shows a check that was not selected")
	}
}

func TestHTMLFilterControls(t *testing.T) {
	r, page := page(t)
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
	for _, want := range []string{r.Coverage.Line(), `<span class="code seen" title="1 answer(s)">200</span>`, `<span class="code unseen"`, `<tr class="uncalled">`} {
		if !strings.Contains(page, want) {
			t.Errorf("the coverage section lacks %s", want)
		}
	}
}
