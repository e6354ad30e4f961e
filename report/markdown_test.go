package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"contractkit/exchange"
)

// The Markdown report names each failed check with its reason and its
// curl line, folds the decided differences, says what changed, and never
// shows the key (here in the target's query and in a failure message a
// server echoed).
func TestMarkdownNamesEachFailedCheckWithItsCurl(t *testing.T) {
	r, o := fixtureRun()
	r.Checks[6].Failure.Message += "\nthe server said: bad key " + testKey
	r.Changes = &Changes{Since: "last.json", Failing: []CheckChange{{Check: "Area models › MUST refuse", Area: "models", Before: Passed, After: Failed}}}
	md := Markdown(r, o)
	for _, want := range []string{
		"## Conformance: failed",
		"| models | 5 | 1 | 0 | 0 |",
		"### Failed checks (2)",
		"#### Area models › MUST refuse &lt;script&gt;alert(1)&lt;/script&gt;",
		"```text\nnot a conforming success:",
		"```sh\n" + `curl -H "Authorization: Bearer $CONFORMANCE_API_KEY" http://127.0.0.1:1/api/v1/user/model/7` + "\n```",
		"#### Area explore › an explore property fails",
		"### Suite failure: AfterSuite",
		"<details><summary>Decided differences",
		"- Area datasets › a dataset differs (D-17: refused with another status code)",
		"checks failing now that passed before (1):\n    - Area models › MUST refuse (passed → failed)",
		r.Coverage.Line(),
		"left behind: 2: datasets 8, conversations c-9",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, testKey) {
		t.Errorf("the Markdown report shows the key:\n%s", md)
	}
	if strings.Contains(md, "| datasets-not-run") || strings.Contains(md, "| explore | 0 | 0 | 0 | 0 |") {
		t.Errorf("an area without a selected check has a row")
	}
}

// However many checks fail, the report stays within a job summary's 1 MiB.
func TestMarkdownIsBounded(t *testing.T) {
	r, o := fixtureRun()
	failed := r.Checks[6]
	failed.Failure = &Failure{Kind: "failed", Message: strings.Repeat("x", 1<<20)}
	for i := range 500 {
		c := failed
		c.Behaviour = fmt.Sprintf("check %d", i)
		r.Checks = append(r.Checks, c)
	}
	md := Markdown(r, o)
	if len(md) > 1<<19 {
		t.Errorf("the Markdown report is %d bytes, want it bounded well under 1 MiB", len(md))
	}
	if !strings.Contains(md, "- Area models › check 499") || !strings.Contains(md, "And 452 more") {
		t.Errorf("the checks past the bound are not named")
	}
}

// A code block's fence is longer than any run of backticks in its text.
func TestMarkdownBlockFence(t *testing.T) {
	if got := block("text", "a ``` b"); !strings.HasPrefix(got, "````text\n") || !strings.HasSuffix(got, "\n````\n\n") {
		t.Errorf("block = %q", got)
	}
}

// A run that holds says so, has no failed checks' section, and says why a
// run stopped; WriteMarkdownFile writes the same text.
func TestMarkdownPassedRun(t *testing.T) {
	r, o := fixtureRun()
	r.Succeeded = true
	r.Checks = r.Checks[:6] // auth and models, all passed
	r.SuiteFailures, r.Spent, r.Coverage = nil, nil, nil
	r.Stopped = []string{"--deadline 60s reached\nthe rest skipped"}
	md := Markdown(r, o)
	for _, want := range []string{
		"## Conformance: passed\n\n",
		"` · 6 passed · 0 failed · 0 skipped · 0 decided-differs · 1s\n\n",
		"**Stopped:** --deadline 60s reached the rest skipped\n\n",
		"| auth | 1 | 0 | 0 | 0 |\n| models | 5 | 0 | 0 | 0 |\n\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks %q:\n%s", want, md)
		}
	}
	for _, not := range []string{"Failed checks", "Suite failure", "<details>", "Changed since", "Spent:"} {
		if strings.Contains(md, not) {
			t.Errorf("a passed run's report has %q:\n%s", not, md)
		}
	}
	path := filepath.Join(t.TempDir(), "summary.md")
	if err := WriteMarkdownFile(path, r, o); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != md {
		t.Errorf("WriteMarkdownFile wrote %q (%v), want Markdown's text", got, err)
	}
}

// A failed check's curl lines are those of the exchanges its judgements
// name and of its differences, at most mdMaxCurls; without either, its
// last exchange's; without any exchange, none.
func TestMarkdownCurlsOfAFailedCheck(t *testing.T) {
	x := func(n int) *exchange.Exchange { return &exchange.Exchange{Curl: fmt.Sprintf("curl %d", n)} }
	for _, tc := range []struct {
		name string
		c    Check
		want []string
	}{
		{"the judged exchanges first, then the differences'", Check{Reproduce: []*exchange.Exchange{x(1), nil, {}}, Differences: []Difference{{Curl: "curl d"}, {}}}, []string{"curl 1", "curl d"}},
		{"at most three", Check{Reproduce: []*exchange.Exchange{x(1), x(2), x(3), x(4)}, Differences: []Difference{{Curl: "curl d"}}}, []string{"curl 1", "curl 2", "curl 3"}},
		{"else the last exchange's", Check{Exchanges: []*exchange.Exchange{x(1), x(2)}}, []string{"curl 2"}},
		{"none without an exchange", Check{}, nil},
	} {
		if got := curlsOf(tc.c); !slices.Equal(got, tc.want) {
			t.Errorf("%s: curlsOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The decided differences are folded with their curl lines indented under
// each, and bounded like the failed checks.
func TestMarkdownDecidedDifferencesFolded(t *testing.T) {
	r, o := fixtureRun()
	md := Markdown(r, o)
	want := "- Area datasets › a dataset differs (D-17: refused with another status code)\n\n  ```sh\n  " +
		`curl -H "Authorization: Bearer $CONFORMANCE_API_KEY" http://127.0.0.1:1/api/v1/user/model/7` + "\n  ```\n\n</details>"
	if !strings.Contains(md, want) {
		t.Errorf("the Markdown report lacks %q:\n%s", want, md)
	}
	differs := r.Checks[7]
	for i := range 2 * mdMaxChecks {
		c := differs
		c.Behaviour = fmt.Sprintf("differs %d", i)
		r.Checks = append(r.Checks, c)
	}
	md = Markdown(r, o)
	if n := strings.Count(md, "(D-17: "); n != mdMaxChecks {
		t.Errorf("%d decided differences shown, want %d", n, mdMaxChecks)
	}
	if !strings.Contains(md, "- … (the HTML and JSON reports have them all)") {
		t.Errorf("the differences past the bound are not said to be elsewhere")
	}
}

// A block longer than mdMaxBlock is cut, and says where the whole is.
func TestMarkdownBlockIsCut(t *testing.T) {
	got := block("text", strings.Repeat("y", 3*mdMaxBlock))
	if len(got) > mdMaxBlock+200 || !strings.Contains(got, "\n(cut: the HTML and JSON reports have it whole)\n```\n\n") {
		t.Errorf("block of %d bytes is %d bytes: %q", 3*mdMaxBlock, len(got), got[len(got)-80:])
	}
}

// A check's name stays text: no emphasis, code, link, table cell or HTML.
func TestEscapeMarkdown(t *testing.T) {
	if got, want := escapeMarkdown("a_b *c* `d` [e](f) <g> h|i\nj\\"), `a\_b \*c\* \`+"`"+`d\`+"`"+` \[e\](f) &lt;g&gt; h\|i j\\`; got != want {
		t.Errorf("escapeMarkdown = %q, want %q", got, want)
	}
}
