package report

import (
	"strings"
	"testing"
)

func TestSpentTableAndLine(t *testing.T) {
	r, _ := fixtureRun()
	var b strings.Builder
	if err := r.Spent.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `kind             budget  taken  created  started  removed  denied
models           1       1      1        0        1        1
datasets         -       1      1        0        0        0
evaluations      -       0      0        0        0        0
evaluation-runs  1       1      0        1        0        0
conversations    -       1      1        0        0        0
inferences       -       2      0        2        0        0
Left behind: 2: datasets 8, conversations c-9
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	line := "budget models=1,evaluation-runs=1; models 1/1 created 1 started 0 removed 1 denied 1; datasets 1/- created 1 started 0 removed 0; " +
		"evaluation-runs 1/1 created 0 started 1 removed 0; conversations 1/- created 1 started 0 removed 0; inferences 2/- created 0 started 2 removed 0; " +
		"left behind: 2: datasets 8, conversations c-9"
	if got := r.Spent.Line(); got != line {
		t.Errorf("line:\n%s\nwant:\n%s", got, line)
	}
	empty := &Spent{}
	if got := empty.Line(); got != "budget none; left behind: none" || empty.LeftBehind() || !r.Spent.LeftBehind() {
		t.Errorf("empty line: %q", got)
	}
}
