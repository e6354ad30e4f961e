package report

import (
	"fmt"
	"strings"
	"testing"
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
